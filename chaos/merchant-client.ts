// A merchant's server as the fault suite plays it, calling the API through the merchant's client (`@payments/node`):
// every call carries an Idempotency-Key and is retried with the same key on a network error, a time-out, a 5xx, 429
// or "in progress", until it has an answer (bounded by a deadline); the client's hooks tell the suite of every failed
// attempt and of the calls in flight. The customer's side (checkout forms) is the browser's: plain fetch. Each create and
// simulate that succeeds is stamped, so the suite can tell when a fault stopped and when it ended. Every fourth
// payment is made by the customer at Lahza (the stand-in) through the checkout instead of a simulate, every other
// one of those in live mode: its refund goes through Lahza (pending until Lahza has processed it), the rest are
// test payments whose refunds complete at once. Another one in four is paid by a signed-in customer from their
// wallet (`togo`) on the checkout, every other one of those in live mode; its refund goes back to the wallet at once.
// Another one in four is paid in crypto on a real local chain: the customer picks the token on the checkout, sends
// the amount to the deposit address, and the chain watcher counts it once confirmed; every other one of those is
// live, whose refund is refused (no outbound transfers), the test ones are refunded at once.
import { randomUUID } from 'node:crypto';
import { centsToTokenUnits } from '@payments/chain';
import { ConflictError, Payments, PaymentsError, type ClientOptions, type PaymentIntent, type WithResponse } from '@payments/node';
import { sendToken, tokenBalance, type LahzaStandIn, type WalletCustomer } from '@payments/testing';

export type Environment = 'test' | 'live';

export interface PaymentOutcome {
  index: number;
  environment: Environment;
  intentId: string;
  paymentId: string;
  /** The refund made of part of the payment, and its amount (none for live crypto: refused, "0.00"). */
  refundId: string | null;
  refundAmount: string;
  /** Time the create succeeded and the simulate succeeded (ms since epoch). */
  createdAt: number;
  succeededAt: number;
  /** Requests that failed and were retried (network, 5xx, 429, in progress). */
  retries: number;
  /** Paid by the customer at Lahza through the checkout (else by a simulate): Lahza's transaction reference. */
  lahzaReference: string | null;
  /** Paid from this wallet on the checkout (`togo`). */
  walletId: string | null;
  /** Paid in crypto on the chain to this deposit address. */
  depositAddress: string | null;
  amount: string;
  /** The refund answered pending (went through Lahza) before it completed. */
  refundWasPending: boolean;
}

const GIVE_UP_AFTER_MS = 120_000;
/**
 * A merchant under faults: every 5xx a proxy or a dying process can answer is retried (safe: the same key makes a
 * repeat the first request), quickly (100 ms doubling to 1 s, Retry-After honoured), as often as fits in 120 s.
 */
const UNDER_FAULTS: Omit<ClientOptions, 'apiKey' | 'baseUrl' | 'hooks'> = {
  maxRetries: Infinity,
  retryDeadlineMs: GIVE_UP_AFTER_MS,
  retryStatuses: [429, 500, 502, 503, 504],
  timeoutMs: 15_000,
  retryBaseDelayMs: 100,
  maxBackoffMs: 1000,
};

/** A call that failed and was retried (a merchant's server would have seen it fail). */
export interface FailedCall {
  at: number;
  /** HTTP status, or 0 for a network error or a time-out. */
  status: number;
  what: string;
}

/** The local chain crypto payments are sent on (anvil keeps its port across restarts). */
export interface ChaosChain {
  rpcUrl: string;
  chainId: number;
  token: `0x${string}`;
  decimals: number;
}

export class MerchantClient {
  /** Every successful create, with its time: the first after a fault's recovery is what the suite reports. */
  readonly createSuccesses: number[] = [];
  /** Every failed call (each retry's cause), with its time: how long a fault made calls fail. */
  readonly failedCalls: FailedCall[] = [];
  /** HTTP calls sent and not yet answered: what a kill catches in flight. */
  inFlight = 0;

  constructor(
    private readonly gatewayUrl: () => string,
    private readonly keys: Record<Environment, string>,
    /** When given, every fourth payment is paid at this Lahza stand-in through the checkout, every eighth in live mode. */
    private readonly lahza?: LahzaStandIn,
    /** When given, every fourth payment (another one) is paid from these signed-in wallets, every eighth in live mode. */
    private readonly wallets?: Record<Environment, WalletCustomer>,
    /** When given, every fourth payment (another one) is paid in crypto on this chain, every eighth in live mode. */
    private readonly chain?: ChaosChain,
  ) {}

  /** A client per environment's key and gateway address (the address is read at each call). */
  private readonly clients = new Map<string, Payments>();

  private api(environment: Environment): Payments {
    const baseUrl = this.gatewayUrl();
    const key = `${environment} ${baseUrl}`;
    let client = this.clients.get(key);
    if (!client) {
      client = new Payments({
        apiKey: this.keys[environment],
        baseUrl,
        ...UNDER_FAULTS,
        hooks: {
          onRequest: () => void this.inFlight++,
          onResponse: (attempt) => {
            this.inFlight--;
            // A failed call is one a fault caused (retried, no answer, or a 5xx); a refusal the suite expects (a live
            // crypto refund's 409) is an answer, and an unexpected one fails its payment anyway.
            const faulted = attempt.retrying || attempt.status === undefined || attempt.status >= 500;
            if (attempt.error && faulted) this.failedCalls.push({ at: Date.now(), status: attempt.status ?? 0, what: `${attempt.method} ${attempt.path}` });
          },
        },
      });
      this.clients.set(key, client);
    }
    return client;
  }

  /** The customer's transfers go one at a time from one account, so their nonces follow each other. */
  private sending: Promise<unknown> = Promise.resolve();

  /**
   * One payment: create, simulate succeeded (or pay at Lahza), refund part of it; each retried with its own key until
   * it answers. A live refund goes through Lahza: pending until Lahza has processed it, then completed.
   */
  async pay(index: number): Promise<PaymentOutcome> {
    try {
      return await this.payOnce(index);
    } catch (error) {
      // The API's message alone is too little to trace a failure: add its status, code, attempts and Request-Id.
      if (!(error instanceof PaymentsError)) throw error;
      throw new Error(`payment ${index}: ${error.status ?? 'no answer'} ${error.code} after ${error.attempts ?? 1} attempts: ${error.message} (Request-Id ${error.requestId ?? 'none'})`);
    }
  }

  private async payOnce(index: number): Promise<PaymentOutcome> {
    const key = randomUUID();
    const tally: Tally = { retries: 0 };
    const counted = <T>(call: Promise<WithResponse<T>>) => countRetries(tally, call);
    const atLahza = this.lahza !== undefined && index % 4 === 3;
    const fromWallet = this.wallets !== undefined && index % 4 === 1;
    const inCrypto = this.chain !== undefined && index % 4 === 2;
    const environment: Environment = (atLahza && index % 8 === 7) || (fromWallet && index % 8 === 5) || (inCrypto && index % 8 === 6) ? 'live' : 'test';
    const amount = amountOf(index);
    const api = () => this.api(environment);
    const created = await counted(api().paymentIntents.create({ amount, currency: 'USD', external_ref: `chaos-${index}` }, { idempotencyKey: key }));
    const createdAt = Date.now();
    this.createSuccesses.push(createdAt);
    const intentId = created.id;
    const lahzaReference = atLahza ? await this.payAtLahza(intentId, environment, tally) : null;
    const walletId = fromWallet ? this.wallets![environment].walletId : null;
    let depositAddress: string | null = null;
    const paid = lahzaReference
      ? await this.settled(() => counted(api().paymentIntents.retrieve(intentId)), 'processing', `intent ${intentId}`)
      : fromWallet
        ? await this.payFromWallet(intentId, environment, tally)
        : inCrypto
          ? await this.payInCrypto(intentId, amount, environment, tally, (address) => (depositAddress = address))
          : await counted(api().paymentIntents.simulate(intentId, { result: 'succeeded' }, { idempotencyKey: `simulate-${key}` }));
    if (paid.status !== 'succeeded' || !paid.payment_id) throw new Error(`payment of ${intentId} answered ${paid.status}`);
    const succeededAt = Date.now();
    const paymentId = paid.payment_id;
    if (inCrypto && environment === 'live') {
      // Returning stablecoins needs an outbound transfer the service does not make: the refund is refused, never half-made.
      const refused = await counted(api().refunds.create(paymentId, { amount: refundOf(index) }, { idempotencyKey: `refund-${key}` })).then(
        (answer) => new Error(`a refund of live crypto payment ${paymentId} was made: ${JSON.stringify(answer)}`),
        (error: Error) => (error instanceof ConflictError && error.code === 'invalid_state' ? null : error),
      );
      if (refused) throw refused;
      return { index, environment, intentId, paymentId, refundId: null, refundAmount: '0.00', createdAt, succeededAt, retries: tally.retries, lahzaReference, walletId, depositAddress, amount, refundWasPending: false };
    }
    const refundAmount = refundOf(index);
    const asked = await counted(api().refunds.create(paymentId, { amount: refundAmount, reason: `chaos-${index}` }, { idempotencyKey: `refund-${key}` }));
    // Live Lahza refunds answer pending and complete once Lahza has processed them (the suite's Lahza does so within a second).
    const expected = environment === 'live' ? 'pending' : 'completed';
    if ((asked.status !== expected && asked.status !== 'completed') || asked.amount !== refundAmount) throw new Error(`refund of ${paymentId} answered ${JSON.stringify(asked)}`);
    const refunded = asked.status === 'completed' ? asked : await this.settled(() => counted(api().refunds.retrieve(asked.id)), 'pending', `refund ${asked.id}`);
    if (refunded.status !== 'completed') throw new Error(`refund ${asked.id} of ${paymentId} ended ${JSON.stringify(refunded)}`);
    const refundWasPending = asked.status === 'pending';
    return { index, environment, intentId, paymentId, refundId: refunded.id, refundAmount, createdAt, succeededAt, retries: tally.retries, lahzaReference, walletId, depositAddress, amount, refundWasPending };
  }

  /** Reads the object until it leaves `state` (bounded). */
  private async settled<T extends { status: string }>(read: () => Promise<T>, state: T['status'], what: string): Promise<T> {
    const started = Date.now();
    for (;;) {
      const object = await read();
      if (object.status !== state) return object;
      if (Date.now() - started > GIVE_UP_AFTER_MS) throw new Error(`${what} is still ${state} after ${GIVE_UP_AFTER_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  /**
   * The signed-in customer's click on "Pay from your wallet" (the same form token and attempt on every retry), until
   * the intent has succeeded: a click whose answer was lost to a fault is clicked again, and the session's one open
   * attempt makes it one payment; an attempt the ledger did not answer is finished by sessions' background check.
   */
  private async payFromWallet(intentId: string, environment: Environment, tally: Tally): Promise<PaymentIntent> {
    const customer = this.wallets![environment];
    const started = Date.now();
    const attempt = randomUUID();
    for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
      let location: string | null = null;
      this.inFlight++;
      try {
        const res = await fetch(`${this.gatewayUrl()}/checkout/${intentId}/wallet/pay`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: customer.cookie, origin: customer.origin },
          body: new URLSearchParams({ _csrf: customer.csrf, attempt, lang: 'en' }).toString(),
          redirect: 'manual',
          signal: AbortSignal.timeout(15_000),
        });
        if (res.status === 303) location = res.headers.get('location') ?? '';
      } catch {
        location = null;
      } finally {
        this.inFlight--;
      }
      if (location?.includes('wallet=insufficient')) throw new Error(`the wallet ${customer.walletId} ran short paying ${intentId}`);
      if (location !== null && !location.includes('wallet=unavailable')) {
        const intent = await this.settled(() => countRetries(tally, this.api(environment).paymentIntents.retrieve(intentId)), 'processing', `intent ${intentId}`);
        if (intent.status === 'succeeded') return intent;
      }
      this.failedCalls.push({ at: Date.now(), status: 0, what: `the wallet pay button of ${intentId}` });
      if (Date.now() - started > GIVE_UP_AFTER_MS) throw new Error(`the wallet payment of ${intentId} did not succeed within ${GIVE_UP_AFTER_MS} ms`);
      tally.retries++;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  /**
   * The customer pays in crypto: picks the chain's token on the checkout (again until the page answers), reads the
   * deposit address, and sends the amount from their own wallet. A transfer lost to a chain restart before it was
   * mined (the node's pending transactions go with it) is sent again only once the address is seen short on the
   * chain for a while, as a customer's wallet app re-broadcasts; so the customer never pays twice. Answers the intent
   * once it has succeeded (the watcher counted the transfer at its confirmations).
   */
  private async payInCrypto(intentId: string, amount: string, environment: Environment, tally: Tally, onAddress: (address: string) => void): Promise<PaymentIntent> {
    const chain = this.chain!;
    const started = Date.now();
    const giveUp = (what: string) => {
      if (Date.now() - started > GIVE_UP_AFTER_MS) throw new Error(`${what} of ${intentId} had no answer within ${GIVE_UP_AFTER_MS} ms`);
    };
    const attempt = randomUUID();
    for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
      this.inFlight++;
      const chose = await fetch(`${this.gatewayUrl()}/checkout/${intentId}/crypto/address`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ network: String(chain.chainId), token: chain.token, attempt }).toString(),
        redirect: 'manual',
        signal: AbortSignal.timeout(15_000),
      })
        .then((res) => res.status === 303 && (res.headers.get('location') ?? '').includes('/crypto?'))
        .catch(() => false)
        .finally(() => this.inFlight--);
      if (chose) break;
      this.failedCalls.push({ at: Date.now(), status: 0, what: `the crypto choice of ${intentId}` });
      giveUp('the crypto choice');
      tally.retries++;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
    const address = (await this.get(intentId, environment)).crypto?.address;
    if (!address) throw new Error(`intent ${intentId} has no deposit address after the customer chose crypto`);
    const to = address as `0x${string}`;
    onAddress(to);
    const [whole, cents] = amount.split('.') as [string, string];
    const units = centsToTokenUnits(BigInt(whole) * 100n + BigInt(cents), chain.decimals);
    const send = async (): Promise<void> => {
      for (let delay = 250; ; delay = Math.min(delay * 2, 2000)) {
        const sent = (this.sending = this.sending.then(() => sendToken(chain.rpcUrl, chain.token, to, units, { wait: false })).then(
          () => true,
          () => false,
        ));
        if (await sent) return;
        this.failedCalls.push({ at: Date.now(), status: 0, what: `the customer's transfer to ${intentId}` });
        giveUp("the customer's transfer");
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    };
    await send();
    let sentAt = Date.now();
    for (;;) {
      const intent = await this.get(intentId, environment);
      if (intent.status === 'succeeded') return intent;
      giveUp('the crypto payment');
      if (Date.now() - sentAt > 8_000) {
        const held = await tokenBalance(chain.rpcUrl, chain.token, to).catch(() => null);
        if (held !== null && held < units) {
          tally.retries++;
          await send();
          sentAt = Date.now();
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  /**
   * The customer's side: the checkout's pay button (until it sends them to Lahza), paying on Lahza's page, and the
   * return to the checkout (until it answers; if the return is lost to a fault, sessions' background check still
   * settles the attempt). Answers Lahza's transaction reference.
   */
  private async payAtLahza(intentId: string, environment: Environment, tally: Tally): Promise<string> {
    const started = Date.now();
    const checkout = () => `${this.gatewayUrl()}/checkout/${intentId}`;
    const retryUntil = async (what: string, attempt: () => Promise<string | null>): Promise<string> => {
      for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
        this.inFlight++;
        const result = await attempt()
          .catch(() => null)
          .finally(() => this.inFlight--);
        if (result !== null) return result;
        this.failedCalls.push({ at: Date.now(), status: 0, what: `${what} of ${intentId}` });
        if (Date.now() - started > GIVE_UP_AFTER_MS) throw new Error(`${what} of ${intentId} had no answer within ${GIVE_UP_AFTER_MS} ms`);
        tally.retries++;
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    };
    const token = randomUUID();
    const lahzaPage = await retryUntil('the pay button', async () => {
      const res = await fetch(`${checkout()}/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        // A test session offers Lahza's test page beside the sandboxes (`provider`); a live one only Lahza.
        body: new URLSearchParams({ method: 'lahza', ...(environment === 'test' ? { provider: '1' } : {}), attempt: token }).toString(),
        redirect: 'manual',
        signal: AbortSignal.timeout(15_000),
      });
      const location = res.headers.get('location') ?? '';
      return res.status === 303 && location.includes('/pay/') ? location : null;
    });
    const reference = [...this.lahza!.transactions.values()].find((tx) => lahzaPage.endsWith(`/pay/${tx.accessCode}`))!.reference;
    this.lahza!.complete(reference, 'success');
    await retryUntil('the return from Lahza', async () => {
      const res = await fetch(`${checkout()}/return?reference=${reference}`, { redirect: 'manual', signal: AbortSignal.timeout(15_000) });
      return res.status === 303 && !(res.headers.get('location') ?? '').includes('declined') ? 'back' : null;
    });
    return reference;
  }

  async get(intentId: string, environment: Environment): Promise<PaymentIntent> {
    return this.api(environment).paymentIntents.retrieve(intentId);
  }

  /** The available balance in one environment, as a MoneyString. */
  async balance(environment: Environment): Promise<string> {
    return (await this.api(environment).balance.retrieve()).available[0]!.amount;
  }

  async createEndpoint(url: string, environment: Environment): Promise<{ id: string; secret: string }> {
    const endpoint = await this.api(environment).webhookEndpoints.create({ url, events: ['payment_intent.succeeded', 'refund.completed'] });
    if (!endpoint.secret) throw new Error(`the endpoint for ${url} was created without its secret`);
    return { id: endpoint.id, secret: endpoint.secret };
  }
}

/** Retries made within one payment, its API calls' and the customer's. */
interface Tally {
  retries: number;
}

/** Adds a call's retries (its attempts less the first) to the payment's, whether the call answered or failed. */
async function countRetries<T>(tally: Tally, call: Promise<WithResponse<T>>): Promise<WithResponse<T>> {
  try {
    const answer = await call;
    tally.retries += answer.lastResponse.attempts - 1;
    return answer;
  } catch (error) {
    if (error instanceof PaymentsError) tally.retries += (error.attempts ?? 1) - 1;
    throw error;
  }
}

/** Amounts vary so a doubled payment could not hide behind an identical one. */
function amountOf(index: number): string {
  return `${10 + (index % 90)}.${String(index % 100).padStart(2, '0')}`;
}

/** A part of the payment (0.01 to 5.00, below every amount), varying so a doubled refund would show in the sums. */
function refundOf(index: number): string {
  const cents = 1 + ((index * 37) % 500);
  return `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}
