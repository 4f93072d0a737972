import {
  SESSIONS_COMMANDS,
  validateCommand,
  type ConfirmProviderPaymentCommand,
  type ProviderNotificationCommand,
  type ProviderNotificationReply,
  type ProviderPaymentOutcome,
  type ProviderRefundReply,
  type ProviderRefundStatusCommand,
  type RefundAtProviderCommand,
  type StartProviderPaymentCommand,
  type StartProviderPaymentReply,
} from '@payments/contracts';
import { MAX_PAYMENT_CENTS, parseMoneyString } from '@payments/money';
import { ApiError } from '@payments/platform';
import type { ProviderPayments } from './provider-payments';
import type { ProviderRefunds } from './provider-refunds';

function parsed<T>(name: (typeof SESSIONS_COMMANDS)[keyof typeof SESSIONS_COMMANDS], body: unknown): T {
  const check = validateCommand(name, body);
  if (!check.ok) throw new ApiError('invalid_request', check.message, check.param);
  return body as T;
}

/** The checkout's provider commands and the refunds service's provider refunds as they arrive, each checked against its schema first. */
export class ProviderPaymentHandlers {
  constructor(
    private readonly payments: ProviderPayments,
    private readonly refunds: ProviderRefunds,
  ) {}

  start(body: unknown): Promise<StartProviderPaymentReply> {
    const command = parsed<StartProviderPaymentCommand>(SESSIONS_COMMANDS.startProviderPayment, body);
    return this.payments.start(command.id, command.method);
  }

  confirm(body: unknown): Promise<ProviderPaymentOutcome> {
    const command = parsed<ConfirmProviderPaymentCommand>(SESSIONS_COMMANDS.confirmProviderPayment, body);
    return this.payments.confirm(command.id, command.reference);
  }

  notification(body: unknown): Promise<ProviderNotificationReply> {
    const command = parsed<ProviderNotificationCommand>(SESSIONS_COMMANDS.providerNotification, body);
    return this.payments.notification(command.provider, Buffer.from(command.body, 'base64'), command.signature);
  }

  refundAtProvider(body: unknown): Promise<ProviderRefundReply> {
    const command = parsed<RefundAtProviderCommand>(SESSIONS_COMMANDS.refundAtProvider, body);
    const amount = parseMoneyString(command.amount, { minCents: 1, maxCents: MAX_PAYMENT_CENTS });
    if (!amount.ok) throw new ApiError('invalid_request', `amount ${amount.message}`, 'amount');
    return this.refunds.refund({
      scope: { merchantId: command.merchant_id, environment: command.environment },
      paymentId: command.payment_id,
      refundId: command.refund_id,
      amountCents: amount.cents,
    });
  }

  providerRefundStatus(body: unknown): Promise<ProviderRefundReply> {
    const command = parsed<ProviderRefundStatusCommand>(SESSIONS_COMMANDS.providerRefundStatus, body);
    return this.refunds.status({ merchantId: command.merchant_id, environment: command.environment }, command.refund_id);
  }
}
