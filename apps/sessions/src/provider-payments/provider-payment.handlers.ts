import {
  SESSIONS_COMMANDS,
  validateCommand,
  type ConfirmProviderPaymentCommand,
  type ProviderNotificationCommand,
  type ProviderNotificationReply,
  type ProviderPaymentOutcome,
  type StartProviderPaymentCommand,
  type StartProviderPaymentReply,
} from '@payments/contracts';
import { ApiError } from '@payments/platform';
import type { ProviderPayments } from './provider-payments';

function parsed<T>(name: (typeof SESSIONS_COMMANDS)[keyof typeof SESSIONS_COMMANDS], body: unknown): T {
  const check = validateCommand(name, body);
  if (!check.ok) throw new ApiError('invalid_request', check.message, check.param);
  return body as T;
}

/** The checkout's provider commands as they arrive, each checked against its schema first. */
export class ProviderPaymentHandlers {
  constructor(private readonly payments: ProviderPayments) {}

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
}
