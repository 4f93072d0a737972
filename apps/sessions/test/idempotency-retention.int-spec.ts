import { IdempotencyKeysPruner } from '../src/idempotency/idempotency-keys.pruner';
import { codeOf, createHarness, intentCommand, invoiceCommand, SCHEMA, testMerchant, type SessionsHarness } from './support/sessions-harness';

// An Idempotency-Key holds its object for the retention (IDEMPOTENCY_TTL_SECONDS, 24 h), as the gateway's replay
// record does; then both layers treat it as new. Before, sessions kept every key for ever: a key reused after a
// day returned the old object (without Idempotent-Replayed) or answered 409 for ever, and the table only grew.
describe('idempotency keys are kept for the retention, then pruned (both layers agree)', () => {
  let h: SessionsHarness;
  const { merchant } = testMerchant();

  beforeAll(async () => {
    h = await createHarness();
  });

  afterAll(async () => {
    await h?.close();
  });

  const age = (key: string, hours: number) =>
    h.dataSource.query(`UPDATE "${SCHEMA}".idempotency_keys SET created_at = now() - make_interval(hours => $2) WHERE key = $1`, [key, hours]);

  it('a payment intent key within the retention replays its intent, and a changed body is 409', async () => {
    const command = intentCommand(merchant);
    const first = await h.intents.create(command, 'r1');
    await age(command.idempotency_key, 23);
    expect((await h.intents.create(command, 'r2')).id).toBe(first.id);
    expect(await codeOf(h.intents.create({ ...command, params: { ...command.params, amount: '75.00' } }, 'r3'))).toBe('idempotency_key_reused');
  });

  it('a payment intent key past the retention makes a new intent, whatever the body', async () => {
    const command = intentCommand(merchant);
    const first = await h.intents.create(command, 'r1');
    await age(command.idempotency_key, 25);
    const again = await h.intents.create({ ...command, params: { ...command.params, amount: '75.00' } }, 'r2');
    expect(again.id).not.toBe(first.id);
    expect(again.amount).toBe('75.00');
    // The key now holds the new intent.
    expect((await h.intents.create({ ...command, params: { ...command.params, amount: '75.00' } }, 'r3')).id).toBe(again.id);
  });

  it('an invoice key past the retention makes a new invoice', async () => {
    const command = invoiceCommand(merchant);
    const first = await h.invoices.create(command, 'r1');
    await age(command.idempotency_key, 25);
    const again = await h.invoices.create(command, 'r2');
    expect(again.id).not.toBe(first.id);
  });

  it('prunes keys past the retention and keeps the rest', async () => {
    const old = intentCommand(merchant);
    const recent = intentCommand(merchant);
    await h.intents.create(old, 'r1');
    await h.intents.create(recent, 'r2');
    await age(old.idempotency_key, 30);
    const pruner = new IdempotencyKeysPruner(h.sessions, h.config, h.clock);
    expect(await pruner.prune()).toBeGreaterThanOrEqual(1);
    const left = await h.dataSource.query(`SELECT key FROM "${SCHEMA}".idempotency_keys WHERE key = ANY($1)`, [[old.idempotency_key, recent.idempotency_key]]);
    expect(left).toEqual([{ key: recent.idempotency_key }]);
  });
});
