import { Client } from 'pg';
import { CLAIM_LEASE_MS } from '@payments/platform';
import { createTestDatabase, freePort, LahzaStandIn, startService, uniqueName, waitFor, type RunningService, type TestDatabase } from '@payments/testing';
import { connectSessionsCommandClient, type SessionsCommandClient } from './support/command-client';
import { intentCommand } from './support/sessions-harness';

// The background check's claim on a provider attempt, with sessions run from dist as its own process and killed
// (SIGKILL) while it verifies: the claim is a short lease the living instance renews, so the attempt is due again
// within the lease, and the restarted instance settles it as the dead one would have: one payment.
describe('provider attempt check after a crash', () => {
  const SECRET_KEY = 'sk_standin_attempt_crash';
  const merchant = uniqueName('acct');
  let standIn: LahzaStandIn;
  let db: TestDatabase;
  let sql: Client;
  let sessions: RunningService | undefined;
  let client: SessionsCommandClient | undefined;

  const attempt = async (reference: string) =>
    (
      await sql.query<{ status: string; next_check_at: Date; verifying_until: Date | null; checks: number; payment_id: string | null }>(
        'SELECT status, next_check_at, verifying_until, checks, payment_id FROM sessions.provider_attempts WHERE reference = $1',
        [reference],
      )
    ).rows[0]!;

  beforeAll(async () => {
    standIn = new LahzaStandIn({ secretKey: SECRET_KEY });
    const lahzaUrl = await standIn.listen();
    db = await createTestDatabase('attempt_crash');
    sql = new Client({ connectionString: db.url });
    await sql.connect();
    sessions = await startService('sessions', {
      PORT: String(await freePort()),
      DATABASE_URL: db.url,
      KAFKA_NAMESPACE: uniqueName('atc'),
      PUBLIC_BASE_URL: 'https://pay.example.test',
      LAHZA_BASE_URL: lahzaUrl,
      LAHZA_LIVE_SECRET_KEY: SECRET_KEY,
      // A verify may take long (the stand-in holds it): the check holds its claim all that time.
      LAHZA_TIMEOUT_MS: '20000',
      PROVIDER_CHECK_INTERVAL_MS: '200',
    });
    client = connectSessionsCommandClient([sessions]);
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    if (sessions && sessions.process.exitCode === null && sessions.process.signalCode === null) await sessions.stop();
    await sql?.end();
    await db?.drop();
    await standIn?.close();
  });

  it('an instance killed while it verifies an attempt holds it no longer than the lease; the restarted one pays it once', async () => {
    const intent = await client!.request('payment-intents.create', intentCommand(merchant, { environment: 'live' }, { customer: { email: 'buyer@example.com' } }));
    const started = await client!.request('checkout.start-provider-payment', { id: intent.id, method: 'lahza' });
    const reference = [...standIn.transactions.values()].find((tx) => started.redirect_url.endsWith(`/pay/${tx.accessCode}`))!.reference;

    // Checked many times already (its next turn would be 5 min away), due now, and the provider slow to answer.
    standIn.delayMs = 10_000;
    await sql.query(`UPDATE sessions.provider_attempts SET checks = 8, next_check_at = now() WHERE reference = $1`, [reference]);
    const verify = `GET /transaction/verify/${reference}`;
    await waitFor(() => standIn.count(verify) === 1, 20_000, 'the background check to verify the attempt');
    // Held over a few leases: the living owner renews its claim (and verifies once).
    await new Promise((resolve) => setTimeout(resolve, 3 * CLAIM_LEASE_MS));
    const renewedAfter = Date.now();
    expect((await attempt(reference)).verifying_until!.getTime()).toBeGreaterThan(renewedAfter);
    expect(standIn.count(verify)).toBe(1);
    // Then it dies mid-verify.
    const killedAt = Date.now();
    await sessions!.kill();
    await client!.close();

    // What the dead instance held runs out within the lease, and the attempt is still due (before: it was pushed to
    // its next turn when the check claimed it).
    const held = await attempt(reference);
    expect(held).toMatchObject({ status: 'open', checks: 8 });
    expect(held.verifying_until!.getTime()).toBeLessThanOrEqual(killedAt + CLAIM_LEASE_MS);
    expect(held.next_check_at.getTime()).toBeLessThanOrEqual(killedAt);

    // The customer paid meanwhile; the restarted instance's check finds it and records it, once.
    standIn.delayMs = 0;
    standIn.complete(reference, 'success');
    sessions = await startService('sessions', sessions!.env);
    client = connectSessionsCommandClient([sessions]);
    await waitFor(async () => (await attempt(reference)).status === 'succeeded', 30_000, 'the restarted instance to settle the attempt');
    const paid = await client.request('payment-intents.get', { merchant_id: merchant, environment: 'live', id: intent.id });
    expect(paid).toMatchObject({ status: 'succeeded', payment_method: 'lahza', payment_id: (await attempt(reference)).payment_id });
    const count = async (table: string, where: string) => (await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM sessions.${table} WHERE ${where}`, [intent.id])).rows[0]!.n;
    expect(await count('payments', 'source_id = $1')).toBe(1);
    expect(await count('events', `stream_id = $1 AND type = 'PaymentIntentSucceeded'`)).toBe(1);
  }, 120_000);
});
