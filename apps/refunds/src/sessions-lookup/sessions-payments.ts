import {
  SESSIONS_COMMANDS,
  SESSIONS_SERVICE,
  type FindPaymentCommand,
  type ProviderRefundReply,
  type ProviderRefundStatusCommand,
  type RefundAtProviderCommand,
  type SessionPaymentResource,
} from '@payments/contracts';
import { ApiError, commandPattern, type ServiceClient } from '@payments/platform';

/**
 * Asks sessions, the payments' owner: for one it has made (null when it has none such for this merchant), and,
 * as it owns the providers, to refund a provider payment at its provider and say what became of that refund.
 */
export interface SessionsPayments {
  find(command: FindPaymentCommand, correlationId: string): Promise<SessionPaymentResource | null>;
  /** Sent with the refund's id as its command id; sessions asks the provider once per refund id however often it is sent. */
  refundAtProvider(command: RefundAtProviderCommand, correlationId: string): Promise<ProviderRefundReply>;
  /** Null when sessions has no such refund (the refund command never reached it). */
  providerRefundStatus(command: ProviderRefundStatusCommand, correlationId: string): Promise<ProviderRefundReply | null>;
}

export class SessionsPaymentsClient implements SessionsPayments {
  private readonly findPattern = commandPattern(SESSIONS_SERVICE, SESSIONS_COMMANDS.findPayment);
  private readonly refundPattern = commandPattern(SESSIONS_SERVICE, SESSIONS_COMMANDS.refundAtProvider);
  private readonly statusPattern = commandPattern(SESSIONS_SERVICE, SESSIONS_COMMANDS.providerRefundStatus);

  constructor(private readonly services: ServiceClient) {}

  async find(command: FindPaymentCommand, correlationId: string): Promise<SessionPaymentResource | null> {
    try {
      return await this.services.request<SessionPaymentResource>(this.findPattern, command, { correlationId });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return null;
      throw error;
    }
  }

  refundAtProvider(command: RefundAtProviderCommand, correlationId: string): Promise<ProviderRefundReply> {
    return this.services.request<ProviderRefundReply>(this.refundPattern, command, { correlationId, commandId: command.refund_id });
  }

  async providerRefundStatus(command: ProviderRefundStatusCommand, correlationId: string): Promise<ProviderRefundReply | null> {
    try {
      return await this.services.request<ProviderRefundReply>(this.statusPattern, command, { correlationId });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return null;
      throw error;
    }
  }
}
