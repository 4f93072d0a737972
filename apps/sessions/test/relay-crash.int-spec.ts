import { execFileSync } from 'node:child_process';
import { Client } from 'pg';
import { STREAMS, topicName } from '@payments/events';
import { collectMessages, createTestDatabase, freePort, startService, uniqueName, waitFor, type RunningService, type TestDatabase } from '@payments/testing';
import { connectSessionsCommandClient, type SessionsCommandClient } from './support/command-client';
import { intentCommand } from './support/sessions-harness';

/** The outbox relay's advisory lock: its first key ('outb'), the second the schema's hash. */
const RELAY_LOCK_NAMESPACE = 0x6f757462;

// The outbox relay's lock is tied to its Postgres session: with two sessions instances run from dist, killing
// (SIGKILL) the one that publishes hands the lock to the other, which publishes what is written after.
describe('outbox relay after a crash', () => {
  const namespace = uniqueName('rly');
  const merchant = uniqueName('acct');
  let db: TestDatabase;
  let sql: Client;
  const services: RunningService[] = [];
  let client: SessionsCommandClient;

  /** The process whose relay holds the lock now, found by its connection's port. */
  const relayHolder = async (): Promise<RunningService | undefined> => {
    const { rows } = await sql.query<{ client_port: number }>(
      `SELECT a.client_port FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.classid = $1 AND l.granted AND a.datname = current_database()`,
      [RELAY_LOCK_NAMESPACE],
    );
    if (rows.length !== 1) return undefined;
    const sockets = execFileSync('ss', ['-tnpH', `sport = :${rows[0]!.client_port}`], { encoding: 'utf8' });
    const pid = Number(/pid=(\d+)/.exec(sockets)?.[1]);
    return services.find((s) => s.process.pid === pid);
  };

  beforeAll(async () => {
    db = await createTestDatabase('relay_crash');
    sql = new Client({ connectionString: db.url });
    await sql.connect();
    const env = { DATABASE_URL: db.url, KAFKA_NAMESPACE: namespace };
    services.push(await startService('sessions', { ...env, PORT: String(await freePort()) }));
    services.push(await startService('sessions', { ...env, PORT: String(await freePort()) }));
    client = connectSessionsCommandClient(services);
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    for (const service of services) if (service.process.exitCode === null && service.process.signalCode === null) await service.stop();
    await sql?.end();
    await db?.drop();
  });

  it('the instance that publishes is killed: the other takes the lock and publishes what comes after', async () => {
    let holder: RunningService | undefined;
    await waitFor(async () => (holder = await relayHolder()) !== undefined, 20_000, 'one instance to hold the relay lock');
    const survivor = services.find((s) => s !== holder)!;
    await holder!.kill();

    await waitFor(async () => (await relayHolder()) === survivor, 10_000, 'the other instance to take the relay lock');
    const intent = await client.request('payment-intents.create', intentCommand(merchant));
    const published = await collectMessages(topicName(namespace, STREAMS.sessions), 1, 20_000, undefined, (m) => m.key === intent.id);
    expect(JSON.parse(published[0]!.value!)).toMatchObject({ type: 'payment_intent.created', aggregate_id: intent.id });
  }, 60_000);
});
