// What happened to a payment intent: the stream its state is built from. Data is plain JSON (ISO timestamps,
// integer cents) so the event store keeps it as is, and values computed at the time (fee) are recorded, not
// recomputed from configuration that may have changed since.
import type { SessionTerms } from './session-aggregate';
import type { IntentPaymentMethod } from './session-types';

export interface PaymentIntentCreated {
  readonly type: 'PaymentIntentCreated';
  readonly data: SessionTerms<IntentPaymentMethod>;
}

export interface PaymentIntentCryptoAddressAssigned {
  readonly type: 'PaymentIntentCryptoAddressAssigned';
  readonly data: { readonly address: string; readonly assignedAt: string };
}

export interface PaymentIntentProcessingStarted {
  readonly type: 'PaymentIntentProcessingStarted';
  readonly data: { readonly method: IntentPaymentMethod; readonly startedAt: string };
}

/** Where a transfer seen on a chain was (absent on sandbox transfers). Block number and token units as decimal strings. */
export interface ChainTransferDetail {
  readonly chainId: number;
  readonly chainName: string;
  readonly token: string;
  readonly tokenSymbol: string;
  readonly txHash: string;
  readonly logIndex: number;
  readonly blockNumber: string;
  readonly units: string;
}

export interface PaymentIntentCryptoTransferReceived {
  readonly type: 'PaymentIntentCryptoTransferReceived';
  readonly data: {
    /** What the resource's `txid` shows: the transaction hash (a sandbox id in test mode). */
    readonly txid: string;
    readonly amountCents: number;
    readonly receivedAt: string;
    /** What the transfer is counted once by: `<chain id>:<tx hash>:<log index>` on a chain; absent means `txid`. */
    readonly key?: string;
    readonly chain?: ChainTransferDetail;
  };
}

/**
 * A transfer already counted was removed from the chain by a reorg deeper than its confirmations. An intent not yet
 * paid stops counting it; a paid one keeps its payment (booked, perhaps fulfilled) and an operator settles it.
 */
export interface PaymentIntentCryptoTransferReversed {
  readonly type: 'PaymentIntentCryptoTransferReversed';
  readonly data: { readonly key: string; readonly txid: string; readonly amountCents: number; readonly reversedAt: string; readonly chain: ChainTransferDetail };
}

export interface PaymentIntentSucceeded {
  readonly type: 'PaymentIntentSucceeded';
  readonly data: {
    readonly paymentId: string;
    /** What was paid when it is not the amount asked (crypto: what was received); absent means the amount. */
    readonly amountCents?: number;
    readonly feeRateBps: number;
    readonly feeCents: number;
    readonly netCents: number;
    readonly paidAt: string;
    /** The customer wallet debited (a `togo` payment); absent otherwise. */
    readonly walletId?: string;
  };
}

export interface PaymentIntentPaymentFailed {
  readonly type: 'PaymentIntentPaymentFailed';
  readonly data: { readonly reason: string; readonly failedAt: string };
}

export interface PaymentIntentCancelled {
  readonly type: 'PaymentIntentCancelled';
  readonly data: { readonly reason: string | null; readonly cancelledAt: string };
}

export interface PaymentIntentExpired {
  readonly type: 'PaymentIntentExpired';
  readonly data: { readonly expiredAt: string };
}

export type PaymentIntentEvent =
  | PaymentIntentCreated
  | PaymentIntentCryptoAddressAssigned
  | PaymentIntentProcessingStarted
  | PaymentIntentCryptoTransferReceived
  | PaymentIntentCryptoTransferReversed
  | PaymentIntentSucceeded
  | PaymentIntentPaymentFailed
  | PaymentIntentCancelled
  | PaymentIntentExpired;

export type PaymentIntentEventType = PaymentIntentEvent['type'];
