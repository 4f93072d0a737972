import { createServer, Server, Socket, connect } from 'node:net';
import { createTestDatabase, freePort, RunningService, startService, TestDatabase, uniqueName, waitFor } from '@payments/testing';

/** A TCP relay to Postgres that the test can cut, as a network partition would. */
class Relay {
  private server?: Server;
  private readonly sockets = new Set<Socket>();

  constructor(readonly port: number, private readonly target: number) {}

  async open(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(this.target, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }

  async cut(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

// /health/ready answers 200 only while the service's Postgres answers; /health/live stays 200; metrics and the
// details of what is down are served on the operations port only.
describe('readiness follows the database', () => {
  let db: TestDatabase;
  let relay: Relay;
  let service: RunningService | undefined;

  beforeAll(async () => {
    db = await createTestDatabase('ready');
    relay = new Relay(await freePort(), 5432);
    await relay.open();
    const url = new URL(db.url);
    url.host = `127.0.0.1:${relay.port}`;
    service = await startService('ledger', { DATABASE_URL: url.toString(), KAFKA_NAMESPACE: uniqueName('rd'), PORT: String(await freePort()) });
  });

  afterAll(async () => {
    await service?.kill();
    await relay.cut().catch(() => undefined);
    await db.drop();
  });

  const status = async (path: string) => (await fetch(`${service!.url}${path}`)).status;

  it('is ready, live and exports Prometheus metrics while Postgres and Kafka answer', async () => {
    expect(await status('/health/ready')).toBe(200);
    expect(await status('/health/live')).toBe(200);
    const metrics = await (await fetch(`${service!.opsUrl}/metrics`)).text();
    expect(metrics).toContain('process_cpu_seconds_total');
    expect(metrics).toContain('http_request_duration_seconds');
  });

  it('turns not ready (503, naming postgres) when Postgres is cut off, and ready again when it is back', async () => {
    await relay.cut();
    await waitFor(async () => (await status('/health/ready')) === 503, 15000);
    // What is down and why: on the operations port; the public probe says only that it is not ready.
    const body = (await (await fetch(`${service!.opsUrl}/health/ready`)).json()) as { error?: Record<string, unknown> };
    expect(body.error).toHaveProperty('postgres');
    expect(await (await fetch(`${service!.url}/health/ready`)).json()).toEqual({ status: 'unavailable' });
    expect(await status('/health/live')).toBe(200);
    await relay.open();
    await waitFor(async () => (await status('/health/ready')) === 200, 20000);
  });
});
