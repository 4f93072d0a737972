import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostLookup } from '@payments/webhooks';
import { WebhookSender } from '../src/deliveries/webhook.sender';

// The HTTP side of one attempt against real sockets on loopback: the connection goes to the address that was
// checked, with the configured name as Host and TLS server name; no redirects; the timeout; the excerpt.

interface Seen {
  headers: IncomingHttpHeaders;
  servername?: string;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A resolver answering from a table and counting its calls. */
function table(entries: Record<string, string[]>): HostLookup & { calls: string[] } {
  const calls: string[] = [];
  return Object.assign(
    async (host: string) => {
      calls.push(host);
      return (entries[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
    { calls },
  );
}

describe('WebhookSender', () => {
  const seen: Seen[] = [];
  let connections = 0;
  let respond: (res: import('node:http').ServerResponse) => void = (res) => res.end('ok');
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createHttpServer((req, res) => {
      seen.push({ headers: req.headers });
      req.resume();
      req.on('end', () => respond(res));
    });
    server.on('connection', () => (connections += 1));
    port = await listen(server);
  });

  afterAll(() => close(server));

  beforeEach(() => {
    seen.length = 0;
    connections = 0;
    respond = (res) => res.end('ok');
  });

  it('connects to the checked address with the configured name as Host (no second resolution)', async () => {
    const lookup = table({ 'merchant.example.test': ['127.0.0.1'] });
    const sender = new WebhookSender({ timeoutMs: 5000, allowInsecure: true, lookup });
    const result = await sender.send(`http://merchant.example.test:${port}/hooks?x=1`, '{"a":1}', { 'content-type': 'application/json' });
    await sender.close();
    expect(result).toMatchObject({ statusCode: 200, responseExcerpt: 'ok', error: null, outcome: { kind: 'response', status: 200 } });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers.host).toBe(`merchant.example.test:${port}`);
    expect(lookup.calls).toEqual(['merchant.example.test']);
  });

  it.each([
    ['a name resolving to 127.0.0.1', 'https://rebind.example.test:PORT/h', { 'rebind.example.test': ['127.0.0.1'] }, 'loopback'],
    ['a name with one private answer among public ones', 'https://mixed.example.test:PORT/h', { 'mixed.example.test': ['93.184.216.34', '127.0.0.1'] }, 'loopback'],
    ['a name resolving to the metadata service', 'https://meta.example.test/h', { 'meta.example.test': ['169.254.169.254'] }, 'metadata'],
    ['an IPv4-mapped loopback literal', 'https://[::ffff:127.0.0.1]:PORT/h', {}, 'loopback'],
    ['plain http', 'http://93.184.216.34/h', {}, 'insecure_scheme'],
  ])('under production settings refuses %s without connecting', async (_name, url, entries, reason) => {
    const sender = new WebhookSender({ timeoutMs: 5000, allowInsecure: false, lookup: table(entries) });
    const result = await sender.send(url.replace('PORT', String(port)), '{}', {});
    await sender.close();
    expect(result).toMatchObject({ refused: reason, statusCode: null, outcome: { kind: 'error' } });
    expect(result.error).toMatch(/^target refused: /);
    expect(connections).toBe(0);
  });

  it('does not follow redirects: a 3xx is the answer', async () => {
    respond = (res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${port}/elsewhere` });
      res.end();
    };
    const sender = new WebhookSender({ timeoutMs: 5000, allowInsecure: true });
    const result = await sender.send(`http://127.0.0.1:${port}/hooks`, '{}', {});
    await sender.close();
    expect(result.outcome).toEqual({ kind: 'response', status: 302, retryAfter: undefined });
    expect(seen).toHaveLength(1);
  });

  it('keeps the first KiB of the answer and the Retry-After header', async () => {
    respond = (res) => {
      res.writeHead(503, { 'retry-after': '120' });
      res.end('x'.repeat(5000));
    };
    const sender = new WebhookSender({ timeoutMs: 5000, allowInsecure: true });
    const result = await sender.send(`http://127.0.0.1:${port}/hooks`, '{}', {});
    await sender.close();
    expect(result.outcome).toEqual({ kind: 'response', status: 503, retryAfter: '120' });
    expect(result.responseExcerpt).toHaveLength(1024);
  });

  it('gives up on an endpoint that does not answer within the timeout', async () => {
    respond = () => undefined;
    const sender = new WebhookSender({ timeoutMs: 300, allowInsecure: true });
    const result = await sender.send(`http://127.0.0.1:${port}/hooks`, '{}', {});
    await sender.close();
    expect(result).toMatchObject({ statusCode: null, error: 'timed out after 300 ms', outcome: { kind: 'error' } });
  });

  it('over HTTPS, connects to the checked address and verifies the certificate for the configured name (SNI)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wd-tls-'));
    let https: Server | undefined;
    try {
      execFileSync('openssl', [
        'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=merchant.example.test',
        '-addext', 'subjectAltName=DNS:merchant.example.test',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      ], { stdio: 'ignore' });
      const cert = readFileSync(join(dir, 'cert.pem'));
      const servernames: string[] = [];
      https = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
        seen.push({ headers: req.headers });
        res.end('tls ok');
      });
      https.on('secureConnection', (socket) => servernames.push(String((socket as unknown as { servername?: string }).servername)));
      const tlsPort = await listen(https);
      const lookup = table({ 'merchant.example.test': ['127.0.0.1'], 'other.example.test': ['127.0.0.1'] });
      const sender = new WebhookSender({ timeoutMs: 5000, allowInsecure: true, lookup, tls: { ca: cert } });
      const ok = await sender.send(`https://merchant.example.test:${tlsPort}/hooks`, '{}', {});
      // Same address, another name: the certificate does not match it, so nothing is sent.
      const wrongName = await sender.send(`https://other.example.test:${tlsPort}/hooks`, '{}', {});
      await sender.close();
      expect(ok).toMatchObject({ statusCode: 200, responseExcerpt: 'tls ok' });
      expect(servernames[0]).toBe('merchant.example.test');
      expect(seen.map((s) => s.headers.host)).toEqual([`merchant.example.test:${tlsPort}`]);
      expect(wrongName.statusCode).toBeNull();
      expect(wrongName.error).toMatch(/altnames|certificate|ERR_TLS_CERT_ALTNAME_INVALID/i);
    } finally {
      if (https) await close(https);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
