import { encodeFrame, FrameDecoder, type CommandFrame } from '@payments/platform';
import { freePort, startStack, uniqueName, type Stack, type TestMerchant } from '@payments/testing';
import { connect, createServer, type Server, type Socket } from 'node:net';

/** What the proxy does with the n-th command (1-based) after sessions has acted on it. */
type AnswerFate = 'deliver' | 'drop' | 'hold';

/**
 * Stands between the gateway and sessions' command port, frame by frame: forwards every command and, as told,
 * loses its answer after sessions acted on it (closes the gateway's connection) or holds it until the gateway
 * gives up.
 */
class LossyProxy {
  readonly commands: Array<{ pattern: string; commandId: string }> = [];
  fate: (n: number, pattern: string) => AnswerFate = () => 'deliver';
  target = '';
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor() {
    this.server = createServer((socket) => this.accept(socket));
  }

  listen(port: number): Promise<void> {
    return new Promise((resolve) => this.server.listen(port, '127.0.0.1', resolve));
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private accept(downstream: Socket): void {
    const target = new URL(this.target);
    const upstream = connect({ host: target.hostname, port: Number(target.port) });
    this.sockets.add(downstream).add(upstream);
    const fates = new Map<number, AnswerFate>();
    const fromGateway = new FrameDecoder(1 << 20, (id, payload) => {
      // The handshake passes through untouched: the gateway and sessions prove the secret to each other.
      if (id === 0) return void upstream.write(encodeFrame(id, payload!.toString('utf8')));
      const frame = JSON.parse(payload!.toString('utf8')) as CommandFrame;
      this.commands.push({ pattern: frame.pattern, commandId: frame.command_id });
      fates.set(id, this.fate(this.commands.length, frame.pattern));
      upstream.write(encodeFrame(id, payload!.toString('utf8')));
    });
    const fromSessions = new FrameDecoder(1 << 24, (id, payload) => {
      if (id === 0) return void downstream.write(encodeFrame(id, payload!.toString('utf8')));
      const fate = fates.get(id);
      fates.delete(id);
      if (fate === 'drop') return void downstream.destroy();
      if (fate === 'hold') return;
      downstream.write(encodeFrame(id, payload!.toString('utf8')));
    });
    downstream.on('data', (chunk: Buffer) => fromGateway.push(chunk));
    upstream.on('data', (chunk: Buffer) => fromSessions.push(chunk));
    // The owner is down: the gateway sees its connection drop, as it would with the owner itself.
    for (const [socket, other] of [[downstream, upstream], [upstream, downstream]] as const) {
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
        other.destroy();
      });
    }
  }
}

// The gateway's commands go straight to the owner's command port: a lost answer is sent again with the same
// command id and acts once; an owner that is down is a quick 503 in the Error shape, never a hang.
describe('command transport', () => {
  const timeoutMs = 2000;
  const proxy = new LossyProxy();
  let stack: Stack;
  let merchant: TestMerchant;

  beforeAll(async () => {
    const proxyPort = await freePort();
    await proxy.listen(proxyPort);
    // Sessions gives up on a row lock after 300 ms (DB_LOCK_TIMEOUT_MS), well inside the gateway's deadline.
    stack = await startStack(
      ['sessions', 'gateway'],
      { REQUEST_TIMEOUT_MS: String(timeoutMs), SESSIONS_URL: `tcp://127.0.0.1:${proxyPort}` },
      { sessions: { DB_LOCK_TIMEOUT_MS: '300' } },
    );
    proxy.target = stack.services.sessions!.commandUrl!;
    merchant = await stack.createMerchant({ testLimit: 10000 });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await proxy.close();
  });

  const createIntent = (key = uniqueName('key')) =>
    stack.call('POST', '/api/v1/payment-intents', { key: merchant.test_key, headers: { 'Idempotency-Key': key }, body: { amount: '10.00', currency: 'USD' } });
  const simulate = (id: string, headers: Record<string, string> = {}) =>
    stack.call('POST', `/api/v1/payment-intents/${id}/simulate`, { key: merchant.test_key, headers, body: { result: 'succeeded' } });
  const countRows = async (sql: string, params: unknown[]) => {
    const db = await stack.db.dataSource('sessions');
    return ((await db.query(sql, params)) as Array<{ n: number }>)[0]!.n;
  };
  const succeededEvents = (id: string) =>
    countRows(`SELECT count(*)::int AS n FROM sessions.events WHERE stream_id = $1 AND type = 'PaymentIntentSucceeded'`, [id]);

  it('answers the ping diagnostic through the command transport, on the operations port only', async () => {
    const ops = stack.services.gateway!.opsUrl;
    const res = await fetch(`${ops}/internal/services/sessions/ping`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ service: 'sessions', latency_ms: expect.any(Number) });
    const unknown = await fetch(`${ops}/internal/services/nope/ping`);
    expect(unknown.status).toBe(404);
    // Not on the public port, with or without a key.
    for (const key of [undefined, merchant.test_key]) {
      const publicPing = await stack.call('GET', '/internal/services/sessions/ping', { key });
      expect(publicPing.status).toBe(404);
      expect(publicPing.body.error.code).toBe('not_found');
    }
    // Both sides time the command, so a slow request can be split into transit and handling.
    const gatewayMetrics = await (await fetch(`${ops}/metrics`)).text();
    expect(gatewayMetrics).toMatch(/rpc_round_trip_seconds_count\{[^}]*command="sessions\.ping"[^}]*\} [1-9]/);
    const sessionsMetrics = await (await fetch(`${stack.services.sessions!.opsUrl}/metrics`)).text();
    expect(sessionsMetrics).toMatch(/command_handle_seconds_count\{[^}]*command="sessions\.ping"[^}]*\} [1-9]/);
    // Metrics are not on the public port either.
    expect((await fetch(`${stack.gatewayUrl}/metrics`)).status).toBe(404);
  });

  it('never serves the command route on the gateway\'s public listener', async () => {
    for (const path of ['/commands/sessions.ping', '/commands/sessions.payment-intents.create']) {
      const res = await stack.call('POST', path, { key: merchant.test_key, body: {} });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('sends a create whose answer was lost again with the same command id, and creates one intent', async () => {
    const before = proxy.commands.length;
    proxy.fate = (n) => (n === before + 1 ? 'drop' : 'deliver');
    const key = uniqueName('key');
    const res = await createIntent(key);
    proxy.fate = () => 'deliver';
    expect(res.status).toBe(201);
    const sent = proxy.commands.slice(before);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.commandId).toBe(key);
    expect(sent[1]!.commandId).toBe(key);
    expect(await countRows(`SELECT count(*)::int AS n FROM sessions.payment_intents WHERE merchant_id = $1 AND id = $2`, [merchant.merchant_id, res.body.id])).toBe(1);
    expect(await countRows(`SELECT count(*)::int AS n FROM sessions.idempotency_keys WHERE key = $1`, [key])).toBe(1);
  });

  it('sends a simulate whose answer was lost again, and it succeeds once (one event, one payment)', async () => {
    const intent = (await createIntent()).body;
    const before = proxy.commands.length;
    proxy.fate = (n) => (n === before + 1 ? 'drop' : 'deliver');
    const res = await simulate(intent.id);
    proxy.fate = () => 'deliver';
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: intent.id, status: 'succeeded', paid: true });
    const sent = proxy.commands.slice(before);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.commandId).toBe(sent[0]!.commandId);
    expect(await succeededEvents(intent.id)).toBe(1);
    expect(await countRows(`SELECT count(*)::int AS n FROM sessions.payments WHERE source_id = $1`, [intent.id])).toBe(1);
  });

  it('answers 503 when an answer never comes, and the merchant retry with the same Idempotency-Key acts once', async () => {
    const intent = (await createIntent()).body;
    const before = proxy.commands.length;
    proxy.fate = (n) => (n === before + 1 ? 'hold' : 'deliver');
    const key = uniqueName('simulate');
    const started = Date.now();
    const timedOut = await simulate(intent.id, { 'Idempotency-Key': key });
    expect(timedOut.status).toBe(503);
    expect(timedOut.body.error).toMatchObject({ code: 'service_unavailable', request_id: expect.any(String) });
    expect(Date.now() - started).toBeLessThan(timeoutMs + 5000);
    // Sessions acted on the held command; the retry is the same command and answers what it did.
    const retried = await simulate(intent.id, { 'Idempotency-Key': key });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ status: 'succeeded', payment_id: expect.any(String) });
    // (The transport's own pings of the instance that went silent are not the merchant's commands.)
    expect(proxy.commands.slice(before).filter((c) => c.pattern !== 'sessions.ping').map((c) => c.commandId)).toEqual([key, key]);
    expect(await succeededEvents(intent.id)).toBe(1);
    // A different command on the finished intent is refused as before: the dedupe is by command id, not a blanket pass.
    expect((await simulate(intent.id)).status).toBe(409);
  });

  it('answers 503 when the row stays locked past the lock timeout, leaves nothing waiting, and the retry acts once', async () => {
    const intent = (await createIntent()).body;
    const db = await stack.db.dataSource('sessions');
    const holder = db.createQueryRunner();
    await holder.connect();
    const key = uniqueName('simulate');
    try {
      await holder.startTransaction();
      await holder.query('SELECT 1 FROM sessions.payment_intents WHERE id = $1 FOR UPDATE', [intent.id]);
      const started = Date.now();
      const locked = await simulate(intent.id, { 'Idempotency-Key': key });
      expect(locked.status).toBe(503);
      expect(locked.headers.get('retry-after')).toBe('1');
      expect(locked.body.error).toMatchObject({ code: 'service_unavailable', message: expect.any(String) });
      // Answered by sessions giving up on the lock, before the gateway's own deadline would have answered.
      expect(Date.now() - started).toBeLessThan(timeoutMs);
      // No statement of sessions is left queued behind the lock.
      const waiting = await countRows(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
        [],
      );
      expect(waiting).toBe(0);
      expect(await succeededEvents(intent.id)).toBe(0);
    } finally {
      await holder.commitTransaction().catch(() => undefined);
      await holder.release();
    }
    const retried = await simulate(intent.id, { 'Idempotency-Key': key });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ id: intent.id, status: 'succeeded', paid: true });
    expect(await succeededEvents(intent.id)).toBe(1);
  });

  it('answers 503 service_unavailable at once when the owner is down, never a hang', async () => {
    await stack.services.sessions!.kill();
    const started = Date.now();
    const res = await stack.call('GET', '/api/v1/payment-intents/pi_test_000000000000000000000000', {
      key: merchant.test_key,
      headers: { 'Request-Id': 'req_test_503_check' },
    });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body).toEqual({ error: { code: 'service_unavailable', message: expect.any(String), request_id: 'req_test_503_check' } });
    // Refused connections fail fast: well under the command deadline (generous margin; not a speed check).
    expect(elapsed).toBeLessThan(timeoutMs);
  });
});
