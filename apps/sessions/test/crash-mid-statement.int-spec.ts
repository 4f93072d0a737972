import { Client } from 'pg';
import { createTestDatabase, freePort, startService, uniqueName, waitFor, type RunningService, type TestDatabase } from '@payments/testing';
import { connectSessionsCommandClient, type SessionsCommandClient } from './support/command-client';
import { intentCommand } from './support/sessions-harness';

// Sessions run from dist and killed (SIGKILL) while one of its statements is in flight: Postgres would notice the
// dead client only once that statement ended, and until then its transaction keeps every lock it took (here the
// intent's row, taken by a command or by the expiry job). Its sessions poll their client while a statement runs,
// so the locks go within about a second, and the restarted instance does what the dead one was doing, once.
describe('a service killed mid-statement', () => {
  const merchant = uniqueName('acct');
  const scope = { merchant_id: merchant, environment: 'test' as const };
  let db: TestDatabase;
  let sessions: RunningService | undefined;
  let client: SessionsCommandClient | undefined;
  const sql: Client[] = [];

  const connect = async () => {
    const connection = new Client({ connectionString: db.url });
    await connection.connect();
    sql.push(connection);
    return connection;
  };

  beforeAll(async () => {
    db = await createTestDatabase('mid_statement');
    sessions = await startService('sessions', {
      PORT: String(await freePort()),
      DATABASE_URL: db.url,
      KAFKA_NAMESPACE: uniqueName('mid'),
      // The lock wait below stands for any statement in flight at the kill (a slow one, one queued behind a lock):
      // without a limit it would never end by itself.
      DB_LOCK_TIMEOUT_MS: '0',
    });
    client = connectSessionsCommandClient([sessions]);
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    if (sessions && sessions.process.exitCode === null && sessions.process.signalCode === null) await sessions.stop();
    for (const connection of sql) await connection.end();
    await db?.drop();
  });

  it("frees the dead instance's row locks within a second or so; the retry pays the intent once", async () => {
    const intent = await client!.request('payment-intents.create', intentCommand(merchant));

    // Another transaction has a payment of this intent in hand (uncommitted): the simulate's statement, having
    // locked the intent's row, waits for it.
    const other = await connect();
    await other.query('BEGIN');
    await other.query(
      `INSERT INTO sessions.payments (id, merchant_id, environment, source_type, source_id, method, currency, amount_cents, fee_cents, net_cents, paid_at)
       VALUES (1, $1, 'test', 'payment_intent', $2, 'crypto', 'USD', 7400, 0, 7400, now())`,
      [merchant, intent.id],
    );
    const first = client!.request('payment-intents.simulate', { ...scope, id: intent.id, result: 'succeeded', method: 'crypto' }).catch((error: unknown) => error);
    const probe = await connect();
    const waiting = async () =>
      (
        await probe.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1`, [
          (other as unknown as { processID: number }).processID,
        ])
      ).rows;
    await waitFor(async () => (await waiting()).length === 1, 20_000, 'the simulate to wait inside its statement');

    await sessions!.kill();
    await client!.close();
    await first;
    // The other transaction still holds its row: only the dead client's session ending frees the intent's.
    await waitFor(() => rowFree(probe, intent.id), 10_000, "the dead instance's lock on the intent to go");
    expect(await waiting()).toEqual([]);
    await other.query('ROLLBACK');

    // The retry, on the restarted instance: paid once, as the first attempt would have.
    sessions = await startService('sessions', sessions!.env);
    client = connectSessionsCommandClient([sessions]);
    const paid = await client.request('payment-intents.simulate', { ...scope, id: intent.id, result: 'succeeded', method: 'crypto' });
    expect(paid).toMatchObject({ status: 'succeeded', paid: true, payment_method: 'crypto' });
    const count = async (table: string, where: string) => (await probe.query<{ n: number }>(`SELECT count(*)::int AS n FROM sessions.${table} WHERE ${where}`, [intent.id])).rows[0]!.n;
    expect(await count('payments', 'source_id = $1')).toBe(1);
    expect(await count('events', `stream_id = $1 AND type = 'PaymentIntentSucceeded'`)).toBe(1);
  }, 120_000);

  it("frees the rows a killed instance's expiry job had locked; the restarted one expires the intent once", async () => {
    const intent = await client!.request('payment-intents.create', intentCommand(merchant, {}, { expires_in: 300 }));
    const probe = await connect();
    // Another transaction is appending to the intent's stream (uncommitted): the expiry's append, made in the
    // transaction that locked the intent's row, waits for it.
    const other = await connect();
    await other.query('BEGIN');
    await other.query(`INSERT INTO sessions.events (stream_id, version, type, data, metadata, occurred_at) VALUES ($1, 2, 'Held', '{}', '{}', now())`, [intent.id]);
    // Due a second ago (the created event is append-only: changed here past its trigger, as no service can).
    const due = new Date(Date.now() - 1000).toISOString();
    await probe.query('SET session_replication_role = replica');
    const changed = await probe.query(`UPDATE sessions.events SET data = jsonb_set(data, '{expiresAt}', to_jsonb($2::text)) WHERE stream_id = $1 AND version = 1 AND data ? 'expiresAt'`, [
      intent.id,
      due,
    ]);
    expect(changed.rowCount).toBe(1);
    await probe.query('UPDATE sessions.payment_intents SET expires_at = $2 WHERE id = $1', [intent.id, due]);
    await probe.query('SET session_replication_role = DEFAULT');
    const waiting = async () =>
      (
        await probe.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1`, [
          (other as unknown as { processID: number }).processID,
        ])
      ).rows;
    await waitFor(async () => (await waiting()).length === 1, 20_000, 'the expiry job to wait inside its transaction');

    await sessions!.kill();
    await client!.close();
    await waitFor(() => rowFree(probe, intent.id), 10_000, "the dead instance's expiry lock on the intent to go");
    expect(await waiting()).toEqual([]);
    await other.query('ROLLBACK');

    sessions = await startService('sessions', sessions!.env);
    client = connectSessionsCommandClient([sessions]);
    const expired = async () => (await client!.request('payment-intents.get', { ...scope, id: intent.id })).status === 'expired';
    await waitFor(expired, 20_000, 'the restarted instance to expire the intent');
    const count = await probe.query<{ n: number }>(`SELECT count(*)::int AS n FROM sessions.events WHERE stream_id = $1 AND type = 'PaymentIntentExpired'`, [intent.id]);
    expect(count.rows[0]!.n).toBe(1);
  }, 120_000);
});

/** Whether the intent's row can be locked now (no other session holds it). */
async function rowFree(probe: Client, id: string): Promise<boolean> {
  await probe.query('BEGIN');
  try {
    await probe.query('SELECT id FROM sessions.payment_intents WHERE id = $1 FOR UPDATE NOWAIT', [id]);
    return true;
  } catch (error) {
    // lock_not_available: another transaction holds the row; anything else is the probe's own failure.
    if ((error as { code?: string }).code === '55P03') return false;
    throw error;
  } finally {
    await probe.query('ROLLBACK');
  }
}
