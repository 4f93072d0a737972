// A local stand-in for Lahza's transaction API, speaking the same protocol (DESIGN §7): initialize with a bearer
// secret key, a hosted page where the "customer" pays or declines, a redirect to the callback with the reference,
// verify, refunds (pending until processed) and notifications signed with x-lahza-signature. Knobs let a test
// delay answers (timeouts), misreport an amount, or send a notification.
import { execFileSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Transaction {
  reference: string;
  accessCode: string;
  amount: number;
  currency: string;
  email: string;
  callbackUrl: string;
  status: 'ongoing' | 'success' | 'failed';
}

export interface LahzaStandInOptions {
  secretKey: string;
  signatureAlgorithm?: 'sha512' | 'sha256';
  /** Serve over HTTPS with this certificate (the checkout's CSP lets forms lead only to https providers). */
  tls?: LocalCertificate;
}

/** A self-signed certificate for 127.0.0.1; `certPath` is what NODE_EXTRA_CA_CERTS takes to trust it. */
export interface LocalCertificate {
  key: string;
  cert: string;
  certPath: string;
}

/** Makes a self-signed certificate for 127.0.0.1 with the machine's openssl (a day's validity). */
export function localCertificate(): LocalCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'standin-tls-'));
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyPath, '-out', certPath], { stdio: 'ignore' });
  return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8'), certPath };
}

export class LahzaStandIn {
  readonly transactions = new Map<string, Transaction>();
  readonly refunds: Array<{ id: string; transaction: string; amount: number; status: 'pending' | 'processed' | 'failed' }> = [];
  /** Every request's method and path, in order. */
  readonly requests: string[] = [];
  /** Answers wait this long (a provider timing out). */
  delayMs = 0;
  /** Verify reports this amount instead of the transaction's (keyed by reference). */
  readonly misreportedAmounts = new Map<string, number>();
  private readonly server: Server;
  private base = '';

  constructor(private readonly options: LahzaStandInOptions) {
    const handler = (req: IncomingMessage, res: ServerResponse) => void this.handle(req, res);
    this.server = options.tls ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, handler) : createServer(handler);
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `${this.options.tls ? 'https' : 'http'}://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.base;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** The customer's choice on the hosted page, as following its link does; answers where they are sent back. */
  complete(reference: string, outcome: 'success' | 'failed'): string {
    const tx = this.transactions.get(reference);
    if (!tx) throw new Error(`no transaction ${reference}`);
    tx.status = outcome;
    const back = new URL(tx.callbackUrl);
    back.searchParams.set('reference', reference);
    back.searchParams.set('trxref', reference);
    return back.toString();
  }

  processRefunds(): void {
    for (const refund of this.refunds) if (refund.status === 'pending') refund.status = 'processed';
  }

  /** Sends a notification of the transaction's state to `url`, signed with `secret` (the real key unless forging). */
  async notify(url: string, reference: string, secret = this.options.secretKey): Promise<number> {
    const tx = this.transactions.get(reference);
    const body = JSON.stringify({ event: tx?.status === 'success' ? 'charge.success' : 'charge.failed', data: { reference, status: tx?.status, amount: tx?.amount, currency: tx?.currency } });
    const signature = createHmac(this.options.signatureAlgorithm ?? 'sha512', secret).update(body).digest('hex');
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-lahza-signature': signature }, body });
    return res.status;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.base);
    this.requests.push(`${req.method} ${url.pathname}`);
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const json = (status: number, body: object) => {
      if (!res.writableEnded) res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    // The hosted page and its links need no key (the customer's browser).
    const page = /^\/pay\/([A-Za-z0-9]+)(\/complete)?$/.exec(url.pathname);
    if (page && req.method === 'GET') {
      const tx = [...this.transactions.values()].find((t) => t.accessCode === page[1]);
      if (!tx) return json(404, { status: false, message: 'Transaction not found' });
      if (!page[2]) {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
          `<!doctype html><html lang="en"><title>Lahza</title><main><h1>Pay ${(tx.amount / 100).toFixed(2)} ${tx.currency}</h1>` +
            `<p><a href="/pay/${tx.accessCode}/complete?outcome=success">Pay</a></p><p><a href="/pay/${tx.accessCode}/complete?outcome=failed">Decline</a></p></main></html>`,
        );
        return;
      }
      const outcome = url.searchParams.get('outcome') === 'success' ? 'success' : 'failed';
      res.writeHead(302, { location: this.complete(tx.reference, outcome) }).end();
      return;
    }
    if (req.headers.authorization !== `Bearer ${this.options.secretKey}`) return json(401, { status: false, message: 'Invalid key' });
    const body = req.method === 'POST' ? ((await readJson(req)) as Record<string, unknown>) : {};
    if (req.method === 'POST' && url.pathname === '/transaction/initialize') {
      const reference = String(body.reference ?? '');
      if (!reference || this.transactions.has(reference)) return json(400, { status: false, message: 'Duplicate Transaction Reference' });
      const amount = Number(body.amount);
      if (!Number.isSafeInteger(amount) || amount <= 0) return json(400, { status: false, message: 'Invalid amount' });
      const accessCode = randomBytes(8).toString('hex');
      this.transactions.set(reference, {
        reference,
        accessCode,
        amount,
        currency: String(body.currency ?? 'USD'),
        email: String(body.email ?? ''),
        callbackUrl: String(body.callback_url ?? ''),
        status: 'ongoing',
      });
      return json(200, { status: true, message: 'Authorization URL created', data: { authorization_url: `${this.base}/pay/${accessCode}`, access_code: accessCode, reference } });
    }
    const verify = /^\/transaction\/verify\/(.+)$/.exec(url.pathname);
    if (req.method === 'GET' && verify) {
      const tx = this.transactions.get(decodeURIComponent(verify[1]!));
      if (!tx) return json(404, { status: false, message: 'Transaction reference not found' });
      return json(200, {
        status: true,
        message: 'Verification successful',
        data: {
          reference: tx.reference,
          status: tx.status,
          amount: this.misreportedAmounts.get(tx.reference) ?? tx.amount,
          currency: tx.currency,
          gateway_response: tx.status === 'failed' ? 'Declined' : 'Approved',
        },
      });
    }
    if (req.method === 'POST' && url.pathname === '/refund') {
      const tx = this.transactions.get(String(body.transaction ?? ''));
      if (!tx || tx.status !== 'success') return json(400, { status: false, message: 'Transaction not refundable' });
      const refund = { id: randomBytes(6).toString('hex'), transaction: tx.reference, amount: Number(body.amount ?? tx.amount), status: 'pending' as const };
      this.refunds.push(refund);
      return json(200, { status: true, message: 'Refund has been queued for processing', data: { status: refund.status, transaction: tx.reference, amount: refund.amount } });
    }
    json(404, { status: false, message: 'Not found' });
  }
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'));
      } catch {
        resolve({});
      }
    });
  });
}
