import type { PaymentEventData } from '@payments/contracts';
import type { Environment } from '@payments/ids';
import { formatMoney } from '@payments/money';
import type { Currency } from '../domain';

/** A payment made when an intent or invoice is paid: what the ledger books (the numeric ids refunds address). */
export interface PaymentRecord {
  readonly id: string;
  readonly merchantId: string;
  readonly environment: Environment;
  readonly sourceType: 'payment_intent' | 'invoice';
  readonly sourceId: string;
  readonly method: string;
  readonly currency: Currency;
  readonly amountCents: number;
  readonly feeRateBps: number;
  readonly feeCents: number;
  readonly netCents: number;
  readonly paidAt: string;
  /** The customer wallet debited, for a wallet (`togo`) payment. */
  readonly walletId?: string | null;
}

/** The payment as the public events carry it (`data.payment`). */
export function paymentEventData(payment: PaymentRecord): PaymentEventData {
  return {
    id: payment.id,
    method: payment.method,
    amount: formatMoney(payment.amountCents),
    fee: formatMoney(payment.feeCents),
    fee_rate_bps: payment.feeRateBps,
    net: formatMoney(payment.netCents),
    currency: payment.currency,
    ...(payment.walletId ? { wallet_id: payment.walletId } : {}),
  };
}

/** The payment of a paid session: its amounts, with what only the kind knows (reference, method, time). */
export function paymentRecord(
  session: {
    readonly id: string;
    readonly merchantId: string;
    readonly environment: Environment;
    readonly currency: Currency;
    readonly amountCents: number;
    readonly feeRateBps: number | null;
    readonly feeCents: number;
    readonly netCents: number;
  },
  paid: Pick<PaymentRecord, 'id' | 'sourceType' | 'method' | 'paidAt' | 'walletId'>,
): PaymentRecord {
  return {
    ...paid,
    merchantId: session.merchantId,
    environment: session.environment,
    sourceId: session.id,
    currency: session.currency,
    amountCents: session.amountCents,
    feeRateBps: session.feeRateBps ?? paidWithoutRate(session.id),
    feeCents: session.feeCents,
    netCents: session.netCents,
  };
}

function paidWithoutRate(id: string): never {
  throw new Error(`session ${id} is not paid: it has no fee rate`);
}
