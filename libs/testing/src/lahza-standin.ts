// A local stand-in for Lahza's transaction API, speaking the same protocol (DESIGN §7): initialize with a bearer
// secret key, a hosted page where the "customer" pays or declines, a redirect to the callback with the reference,
// verify, refunds (pending until processed or failed; fetched by id, listed by transaction) and notifications signed
// with x-lahza-signature. Knobs let a test delay answers (all, or one kind of request), cut an answer's body off,
// misreport an amount, report a transaction `abandoned` or `failed` for a while before the customer pays on the same
// page (as Paystack does), fail a refund with a reason, stop answering at all (closed port) or send a notification.
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
  /**
   * `abandoned` (not finished yet) and `failed` (a declined card) are not final: the customer may still pay on the
   * page; `reversed` is over.
   */
  status: 'ongoing' | 'success' | 'failed' | 'abandoned' | 'reversed';
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

export interface StandInRefund {
  /** Lahza's refund id (a number, as its answers give it). */
  id: number;
  transaction: string;
  amount: number;
  status: 'pending' | 'processed' | 'failed';
  /** Why it failed. */
  reason: string | null;
}

export class LahzaStandIn {
  readonly transactions = new Map<string, Transaction>();
  readonly refunds: StandInRefund[] = [];
  /** Every request's method and path, in order. */
  readonly requests: string[] = [];
  /** Every request whose exchange has ended (answered, or the caller gone), in order. */
  readonly ended: string[] = [];
  /** Answers wait this long (a provider timing out; what was asked is still done, as a slow provider does). */
  delayMs = 0;
  /** Answers to requests of this method and path (a prefix, as `count` takes it) wait this long instead. */
  readonly slow = new Map<string, number>();
  /**
   * The next answer to each request here (method and path prefix) is cut off: what was asked is done, the status
   * line and the start of the body are sent, then the connection drops (a timeout or a proxy mid-answer).
   */
  readonly cutOff = new Set<string>();
  /** The list of refunds shows none yet (a list that lags behind the refunds made). */
  unlisted = false;
  /** Every API call answers 503 and does nothing (the provider's servers failing). */
  unavailable = false;
  /** Verify reports this amount instead of the transaction's (keyed by reference). */
  readonly misreportedAmounts = new Map<string, number>();
  private readonly server: Server;
  private base = '';
  private port = 0;
  private nextRefundId = 3018284;

  /** The key it takes (and signs notifications with). */
  get secretKey(): string {
    return this.options.secretKey;
  }

  constructor(private readonly options: LahzaStandInOptions) {
    const handler = (req: IncomingMessage, res: ServerResponse) => void this.handle(req, res);
    this.server = options.tls ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, handler) : createServer(handler);
  }

  /** Listens on a port of its own; after close(), on the same port again (the provider back up). */
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    this.base = `${this.options.tls ? 'https' : 'http'}://127.0.0.1:${this.port}`;
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

  /** Lahza's own status of the transaction changes, without the customer being sent back (`abandoned`, a retried card). */
  report(reference: string, status: Transaction['status']): void {
    const tx = this.transactions.get(reference);
    if (!tx) throw new Error(`no transaction ${reference}`);
    tx.status = status;
  }

  /** Requests of this method and path (a prefix) received whose exchange has not ended yet. */
  inFlight(request: string): number {
    const matches = (r: string) => r === request || r.startsWith(`${request}/`);
    return this.requests.filter(matches).length - this.ended.filter(matches).length;
  }

  processRefunds(): void {
    for (const refund of this.refunds) if (refund.status === 'pending') refund.status = 'processed';
  }

  /** The refund fails at the provider with this reason (the last refund of the transaction when given a reference). */
  failRefund(idOrReference: number | string, reason: string): StandInRefund {
    const refund =
      typeof idOrReference === 'number' ? this.refunds.find((r) => r.id === idOrReference) : this.refunds.filter((r) => r.transaction === idOrReference).at(-1);
    if (!refund) throw new Error(`no refund ${idOrReference}`);
    refund.status = 'failed';
    refund.reason = reason;
    return refund;
  }

  /** How many requests of this method and path (a prefix) it received. */
  count(request: string): number {
    return this.requests.filter((r) => r === request || r.startsWith(`${request}/`)).length;
  }

  /** The knob of `knobs` whose method and path prefix this request is. */
  private knobOf<T>(knobs: Iterable<[string, T]>, request: string): [string, T] | undefined {
    for (const knob of knobs) if (request === knob[0] || request.startsWith(`${knob[0]}/`)) return knob;
    return undefined;
  }

  /** Sends a `refund.<status>` notification of the refund to `url`, signed with the key. */
  async notifyRefund(url: string, id: number, secret = this.options.secretKey): Promise<number> {
    const refund = this.refunds.find((r) => r.id === id);
    if (!refund) throw new Error(`no refund ${id}`);
    const body = JSON.stringify({ event: `refund.${refund.status}`, data: { ...this.refundData(refund), transaction_reference: refund.transaction } });
    const signature = createHmac(this.options.signatureAlgorithm ?? 'sha512', secret).update(body).digest('hex');
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-lahza-signature': signature }, body });
    return res.status;
  }

  private refundData(refund: StandInRefund) {
    const tx = this.transactions.get(refund.transaction);
    return {
      id: refund.id,
      transaction: { reference: refund.transaction, amount: tx?.amount, currency: tx?.currency },
      amount: refund.amount,
      currency: tx?.currency ?? 'USD',
      status: refund.status,
      ...(refund.reason ? { failure_reason: refund.reason } : {}),
    };
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
    const request = `${req.method} ${url.pathname}`;
    this.requests.push(request);
    res.on('close', () => this.ended.push(request));
    // The body is read first: a caller that gives up while the answer is delayed has still asked.
    const body = req.method === 'POST' ? ((await readJson(req)) as Record<string, unknown>) : {};
    const delayMs = this.knobOf(this.slow, request)?.[1] ?? this.delayMs;
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const cut = this.knobOf([...this.cutOff].map((k) => [k, true] as [string, boolean]), request);
    if (cut) this.cutOff.delete(cut[0]);
    const json = (status: number, body: object) => {
      if (res.writableEnded) return;
      const text = JSON.stringify(body);
      if (!cut) return void res.writeHead(status, { 'content-type': 'application/json' }).end(text);
      // Promises the whole length, sends half, and drops the connection.
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
      res.write(text.slice(0, Math.floor(text.length / 2)), () => res.destroy());
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
    if (this.unavailable) return json(503, { status: false, message: 'Service unavailable' });
    if (req.headers.authorization !== `Bearer ${this.options.secretKey}`) return json(401, { status: false, message: 'Invalid key' });
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
          gateway_response: tx.status === 'failed' ? 'Declined' : tx.status === 'abandoned' ? 'The transaction was not completed' : tx.status === 'reversed' ? 'Reversed' : 'Approved',
        },
      });
    }
    if (req.method === 'POST' && url.pathname === '/refund') {
      const tx = this.transactions.get(String(body.transaction ?? ''));
      if (!tx || tx.status !== 'success') return json(400, { status: false, message: 'Transaction not refundable' });
      const amount = body.amount === undefined ? tx.amount : Number(body.amount);
      const refunded = this.refunds.filter((r) => r.transaction === tx.reference && r.status !== 'failed').reduce((sum, r) => sum + r.amount, 0);
      if (!Number.isSafeInteger(amount) || amount <= 0 || refunded + amount > tx.amount) {
        return json(400, { status: false, message: 'Refund amount cannot be more than the transaction amount' });
      }
      const refund: StandInRefund = { id: this.nextRefundId++, transaction: tx.reference, amount, status: 'pending', reason: null };
      this.refunds.push(refund);
      return json(200, { status: true, message: 'Refund has been queued for processing', data: this.refundData(refund) });
    }
    const fetchRefund = /^\/refund\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && fetchRefund) {
      const refund = this.refunds.find((r) => String(r.id) === decodeURIComponent(fetchRefund[1]!));
      if (!refund) return json(404, { status: false, message: 'Refund not found' });
      return json(200, { status: true, message: 'Refund retrieved', data: this.refundData(refund) });
    }
    if (req.method === 'GET' && url.pathname === '/refund') {
      // Filtered by the transaction (Paystack's `transaction`; `reference` in older clients).
      const transaction = url.searchParams.get('transaction') ?? url.searchParams.get('reference');
      const listed = this.unlisted ? [] : this.refunds.filter((r) => transaction === null || r.transaction === transaction);
      return json(200, { status: true, message: 'Refunds retrieved', data: listed.map((r) => this.refundData(r)) });
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
