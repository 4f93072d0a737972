import { Logger } from '@nestjs/common';
import { newPaymentId, type Environment } from '@payments/ids';
import type { PaymentIntentCommands } from '../payment-intents/payment-intent.commands';
import type { ChainTransferDetail, PaymentIntentState } from '../domain';
import type { StreamScope } from '../event-store/event-store';
import type { Clock } from '../shared/clock';

/** A token transfer to a session's deposit address, with the chain's configured confirmations. */
export interface ConfirmedTransfer {
  readonly environment: Environment;
  readonly sessionId: string;
  readonly chainId: number;
  readonly chainName: string;
  readonly token: `0x${string}`;
  readonly tokenSymbol: string;
  readonly txHash: `0x${string}`;
  readonly logIndex: number;
  readonly blockNumber: bigint;
  readonly units: bigint;
  /** Whole cents of `units` (1 token = 1 USD), the sub-cent rest dropped as dust. */
  readonly cents: bigint;
}

/** Where the chain watcher hands confirmed transfers (and counted ones a reorg removed). */
export interface ConfirmedTransferSink {
  /** Applies the transfer to its intent; the same (chainId, txHash, logIndex) again does nothing. */
  record(t: ConfirmedTransfer): Promise<void>;
  /** A transfer `record` was given, removed by a reorg deeper than the confirmations. */
  reportReversed(t: ConfirmedTransfer): Promise<void>;
}

/** What a transfer is counted once by, on the intent: `<chain id>:<tx hash>:<log index>`. */
export function transferKey(t: Pick<ConfirmedTransfer, 'chainId' | 'txHash' | 'logIndex'>): string {
  return `${t.chainId}:${t.txHash.toLowerCase()}:${t.logIndex}`;
}

function detailOf(t: ConfirmedTransfer): ChainTransferDetail {
  return {
    chainId: t.chainId,
    chainName: t.chainName,
    token: t.token.toLowerCase(),
    tokenSymbol: t.tokenSymbol,
    txHash: t.txHash.toLowerCase(),
    logIndex: t.logIndex,
    blockNumber: t.blockNumber.toString(),
    units: t.units.toString(),
  };
}

/**
 * The sessions side of the watcher: each transfer goes through the intents' own change path (events, read model and
 * outbox in one statement, retried on a lost race), so webhooks, the ledger and the page follow as for any change.
 * What the intent does with it is the aggregate's (PaymentIntent.receiveChainTransfer). Transfers that do not simply
 * pay an open intent are logged for an operator: after expiry (warn), to a paid or cancelled intent (warn: returned
 * to the sender by the treasury), beside another method's open attempt (warn), and reversals after counting (error).
 */
export class PaymentIntentTransferSink implements ConfirmedTransferSink {
  private readonly logger = new Logger('CryptoTransfers');

  constructor(
    private readonly intents: PaymentIntentCommands,
    /** Whose intent an id is (its read-model row), or null. */
    private readonly ownerOf: (sessionId: string) => Promise<StreamScope | null>,
    private readonly clock: Clock,
  ) {}

  async record(t: ConfirmedTransfer): Promise<void> {
    const key = transferKey(t);
    const amountCents = this.centsOf(t);
    const scope = await this.scopeOf(t);
    const before = await this.intents.aggregateOf(scope, t.sessionId);
    const { aggregate } = await this.intents.changeWith(scope, t.sessionId, { correlationId: `crypto:${key}` }, (intent, now) =>
      intent.receiveChainTransfer({ key, amountCents, chain: detailOf(t), paymentId: newPaymentId(), now }),
    );
    this.report(t, key, amountCents, before.state, aggregate.state);
  }

  async reportReversed(t: ConfirmedTransfer): Promise<void> {
    const key = transferKey(t);
    const scope = await this.scopeOf(t);
    const { aggregate } = await this.intents.changeWith(scope, t.sessionId, { correlationId: `crypto-reorg:${key}` }, (intent, now) =>
      intent.reverseChainTransfer({ key, chain: detailOf(t), now }),
    );
    const { status, crypto } = aggregate.state;
    this.logger.error(
      { sessionId: t.sessionId, environment: t.environment, chain: t.chainName, txHash: t.txHash, logIndex: t.logIndex, units: t.units.toString(), cents: t.cents.toString(), status, receivedCents: crypto.receivedCents },
      status === 'succeeded'
        ? 'a counted crypto transfer was removed by a reorg after the intent was paid: the payment stands; an operator must settle the shortfall'
        : 'a counted crypto transfer was removed by a reorg: the intent no longer counts it',
    );
  }

  private report(t: ConfirmedTransfer, key: string, amountCents: number, before: PaymentIntentState, after: PaymentIntentState): void {
    const counted = after.crypto.transfers.some((c) => c.key === key) && !before.crypto.transfers.some((c) => c.key === key);
    if (!counted) return;
    const fields = { sessionId: t.sessionId, environment: t.environment, chain: t.chainName, txHash: t.txHash, logIndex: t.logIndex, amountCents, status: after.status, receivedCents: after.crypto.receivedCents };
    const expiredBefore = Date.parse(before.expiresAt) <= this.clock.now().getTime() && before.status !== 'succeeded' && before.status !== 'cancelled';
    if (before.status === 'succeeded' || before.status === 'cancelled') {
      this.logger.warn(fields, `crypto transfer to a ${before.status} intent: recorded, not booked; return it to the sender`);
    } else if (expiredBefore) {
      this.logger.warn(fields, after.status === 'succeeded' ? 'crypto transfer after expiry completed the intent (paid late)' : 'crypto transfer after expiry: recorded on the expired intent, not booked');
    } else if (amountCents === 0) {
      this.logger.warn(fields, 'crypto transfer below one cent: recorded, not counted');
    } else if (before.status === 'processing' && before.paymentMethod !== 'crypto') {
      // The customer paid in crypto while an attempt of another method was open (a card at Lahza, a wallet debit).
      this.logger.warn(
        { ...fields, openAttempt: before.paymentMethod },
        after.status === 'succeeded'
          ? `crypto transfer completed the intent beside an open ${before.paymentMethod} attempt: a payment that attempt still makes is kept for a refund`
          : `crypto transfer beside an open ${before.paymentMethod} attempt: recorded; if that attempt pays, return this transfer to the sender`,
      );
    } else {
      this.logger.log(fields, 'crypto transfer recorded');
    }
  }

  private centsOf(t: ConfirmedTransfer): number {
    if (t.cents < 0n || t.cents > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`transfer ${t.txHash}:${t.logIndex} of ${t.cents} cents is out of range`);
    return Number(t.cents);
  }

  private async scopeOf(t: ConfirmedTransfer): Promise<StreamScope> {
    const scope = await this.ownerOf(t.sessionId);
    if (scope === null || scope.environment !== t.environment) throw new Error(`no ${t.environment} payment intent ${t.sessionId} for transfer ${t.txHash}:${t.logIndex}`);
    return scope;
  }
}
