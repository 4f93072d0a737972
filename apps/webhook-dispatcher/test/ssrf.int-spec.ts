import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { exitOf, freePort, startService, uniqueName, waitFor } from '@payments/testing';
import { intentEvent, newEndpoint } from './support/fixtures';
import { createHarness, SCHEMA, type Harness } from './support/harness';

// Production settings (NODE_ENV=production, no WEBHOOK_ALLOW_INSECURE_TARGETS): every kind of non-public target
// is refused at delivery, before any connection, including a host name that resolves to 127.0.0.1; and the
// service refuses to start with the development settings.
describe('only public HTTPS targets under production settings', () => {
  let h: Harness;
  let listener: Server;
  let port: number;
  let connections = 0;
  const secretsKey = randomBytes(32);

  beforeAll(async () => {
    h = await createHarness('wd_ssrf');
    // Anything that connects to this machine is counted, whatever it speaks.
    listener = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '0.0.0.0', resolve));
    port = (listener.address() as AddressInfo).port;
    await h.startDispatcher({
      NODE_ENV: 'production',
      COMMAND_SECRET: randomBytes(32).toString('base64'),
      WEBHOOK_SECRETS_KEY: secretsKey.toString('base64'),
      WEBHOOK_ALLOW_INSECURE_TARGETS: '0',
      WEBHOOK_RETRY_SCHEDULE_MS: '600000',
      WEBHOOK_TIMEOUT_MS: '2000',
    });
  }, 120_000);

  afterAll(async () => {
    await h?.close();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  });

  const targets: Array<[string, string]> = [
    ['https://localhost:PORT/hooks', 'a loopback address'], // a host name resolving to 127.0.0.1
    ['https://127.0.0.1:PORT/hooks', 'a loopback address'],
    ['https://127.1.2.3:PORT/hooks', 'a loopback address'],
    ['https://[::1]:PORT/hooks', 'a loopback address'],
    ['https://[::ffff:127.0.0.1]:PORT/hooks', 'a loopback address'],
    ['https://0.0.0.0:PORT/hooks', 'the unspecified address'],
    ['https://10.0.0.1:PORT/hooks', 'a private-network address'],
    ['https://172.16.5.4:PORT/hooks', 'a private-network address'],
    ['https://192.168.1.1:PORT/hooks', 'a private-network address'],
    ['https://100.64.0.1:PORT/hooks', 'a carrier-grade NAT address'],
    ['https://169.254.169.254/latest/meta-data/', 'a cloud metadata service address'],
    ['https://169.254.10.20:PORT/hooks', 'a link-local address'],
    ['https://224.0.0.1:PORT/hooks', 'a multicast address'],
    ['https://[fc00::1]:PORT/hooks', 'a unique-local (private) IPv6 address'],
    ['https://[fd00:ec2::254]/latest', 'a cloud metadata service address'],
    ['https://[fe80::1]:PORT/hooks', 'a link-local address'],
    ['https://[ff02::1]:PORT/hooks', 'a multicast address'],
    ['http://127.0.0.1:PORT/hooks', 'must start with https://'],
  ];

  it('refuses every private target kind at delivery, without connecting', async () => {
    const merchant = uniqueName('acct');
    const byUrl = new Map<string, string>();
    for (const [template, expected] of targets) {
      const endpoint = newEndpoint(merchant, 'test', template.replace('PORT', String(port)), null, secretsKey);
      await h.configure(endpoint);
      byUrl.set(endpoint.snapshot.id, expected);
    }
    const event = intentEvent(merchant, 'test');
    await h.publish('sessions', [event]);
    let attempts: Array<{ endpoint_id: string; url: string; status_code: number | null; error: string | null }> = [];
    await waitFor(
      async () => {
        attempts = await h.query(
          `SELECT d.endpoint_id, ep.url, a.status_code, a.error FROM ${SCHEMA}.attempts a
           JOIN ${SCHEMA}.deliveries d ON d.id = a.delivery_id JOIN ${SCHEMA}.endpoints ep ON ep.id = d.endpoint_id
           WHERE d.event_id = $1`,
          [event.id],
        );
        return attempts.length >= targets.length;
      },
      30_000,
      'one attempt per endpoint',
    );
    expect(attempts).toHaveLength(targets.length);
    for (const attempt of attempts) {
      expect({ url: attempt.url, status: attempt.status_code }).toEqual({ url: attempt.url, status: null });
      expect({ url: attempt.url, error: attempt.error }).toEqual({ url: attempt.url, error: expect.stringContaining('target refused') });
      // The merchant reads this text: never the address, nor the kind of network it is in.
      const expected = byUrl.get(attempt.endpoint_id)!.startsWith('must') ? byUrl.get(attempt.endpoint_id)! : 'does not resolve to a public address';
      expect({ url: attempt.url, error: attempt.error }).toEqual({ url: attempt.url, error: expect.stringContaining(expected) });
      expect(attempt.error).not.toMatch(/\d+\.\d+\.\d+\.\d+|::|loopback|private|metadata|link-local|multicast/);
    }
    expect(connections).toBe(0);
  });

  it('refuses to start in production with WEBHOOK_ALLOW_INSECURE_TARGETS=1 or the development key', async () => {
    const common = { DATABASE_URL: h.db.url, KAFKA_NAMESPACE: h.namespace, NODE_ENV: 'production' };
    const insecure = await startService(
      'webhook-dispatcher',
      { ...common, PORT: String(await freePort()), WEBHOOK_SECRETS_KEY: randomBytes(32).toString('base64'), WEBHOOK_ALLOW_INSECURE_TARGETS: '1' },
      { waitReady: false },
    );
    const first = await exitOf(insecure);
    expect(first.code).toBe(1);
    expect(first.output).toContain('WEBHOOK_ALLOW_INSECURE_TARGETS is a development setting and is refused when NODE_ENV=production');

    const devKey = await startService('webhook-dispatcher', { ...common, PORT: String(await freePort()) }, { waitReady: false });
    const second = await exitOf(devKey);
    expect(second.code).toBe(1);
    expect(second.output).toContain('WEBHOOK_SECRETS_KEY must be set to a secret key when NODE_ENV=production');
  });
});
