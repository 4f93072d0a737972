// The one interface every payment provider sits behind (DESIGN §7): start an attempt, verify it, confirm a
// notification, refund. Plain TypeScript: adapters implement it, the checkout and refunds use it.

/** What the provider says of an attempt when asked (never trusted from a redirect or notification alone). */
export interface ProviderVerification {
  readonly reference: string;
  /**
   * `declined`: this try failed (a card declined) but the transaction is not over, the customer may still pay it on
   * the same page; `failed`: over, it will never be paid; `pending`: no outcome yet (also a page left unfinished).
   */
  readonly status: 'succeeded' | 'declined' | 'failed' | 'pending';
  /** Minor units, as the provider reports them. */
  readonly amountCents: number;
  readonly currency: string;
  /** The provider's own words on a failure. */
  readonly reason: string | null;
}

export interface StartAttempt {
  /** Our attempt id: the provider's reference, so a callback names the attempt. */
  readonly reference: string;
  readonly amountCents: number;
  readonly currency: 'USD';
  readonly email: string;
  /** Where the provider sends the customer back. */
  readonly callbackUrl: string;
}

/** A refund as the provider reports it. */
export interface ProviderRefund {
  /** The provider's id of the refund, to ask about it later (null when its answer did not carry one). */
  readonly id: string | null;
  readonly status: 'pending' | 'processed' | 'failed';
  /** Minor units, as the provider reports them (null when its answer did not say). */
  readonly amountCents: number | null;
  /** The provider's own words on a failure. */
  readonly reason: string | null;
}

export interface PaymentProvider {
  /** Opens the attempt at the provider; the customer goes to `redirectUrl`. */
  startAttempt(attempt: StartAttempt): Promise<{ redirectUrl: string }>;
  verify(reference: string): Promise<ProviderVerification>;
  /** True when the notification's signature is the provider's (checked in constant time); confirm with verify. */
  isSignedNotification(rawBody: Buffer, signature: string | undefined): boolean;
  /** Asks the provider to return part or all of the transaction `reference`; usually pending at first. */
  refund(input: { readonly reference: string; readonly amountCents: number }): Promise<ProviderRefund>;
  /** One refund as the provider has it now, by the id its create answer gave. */
  refundStatus(id: string): Promise<ProviderRefund>;
  /** Every refund the provider has of the transaction `reference` (to learn whether a request whose answer was lost was made). */
  refundsOf(reference: string): Promise<ProviderRefund[]>;
}

/** The provider could not be reached or did not answer in time: the attempt stays retryable, nothing is lost. */
export class ProviderUnavailable extends Error {
  constructor(
    message: string,
    /**
     * False only when the request certainly never reached the provider (connection refused, no such host): it did
     * nothing there. Otherwise (a timeout, a dropped connection, a 5xx) it may have acted before failing to answer.
     */
    readonly mayHaveArrived = true,
  ) {
    super(message);
    this.name = 'ProviderUnavailable';
  }
}

/** The provider answered with a refusal (bad key, unknown reference, refused refund). */
export class ProviderRefused extends Error {
  constructor(
    message: string,
    /** The provider's own words, when it gave some. */
    readonly providerMessage: string | null = null,
  ) {
    super(message);
    this.name = 'ProviderRefused';
  }
}

/**
 * The outcome of a verified attempt for a session that expects `amountCents` in `currency`: a success for another
 * amount or currency is not a success (it fails loudly, with both figures), whatever the provider calls it.
 */
export function outcomeOf(verification: ProviderVerification, expected: { amountCents: number; currency: string }):
  | { outcome: 'succeeded' }
  | { outcome: 'pending' }
  | { outcome: 'declined'; reason: string }
  | { outcome: 'failed'; reason: string } {
  if (verification.status === 'pending') return { outcome: 'pending' };
  if (verification.status === 'declined') return { outcome: 'declined', reason: verification.reason ?? 'declined' };
  if (verification.status === 'failed') return { outcome: 'failed', reason: verification.reason ?? 'declined' };
  if (verification.amountCents !== expected.amountCents || verification.currency.toUpperCase() !== expected.currency) {
    return {
      outcome: 'failed',
      reason: `amount_mismatch: provider verified ${verification.amountCents} ${verification.currency}, the session is ${expected.amountCents} ${expected.currency}`,
    };
  }
  return { outcome: 'succeeded' };
}
