import { SESSIONS_COMMANDS, SESSIONS_SERVICE, type FindPaymentCommand, type SessionPaymentResource } from '@payments/contracts';
import { ApiError, commandPattern, type ServiceClient } from '@payments/platform';

/** Asks sessions, the payments' owner, for one it has made (null when it has none such for this merchant). */
export interface SessionsPayments {
  find(command: FindPaymentCommand, correlationId: string): Promise<SessionPaymentResource | null>;
}

export class SessionsPaymentsClient implements SessionsPayments {
  private readonly pattern = commandPattern(SESSIONS_SERVICE, SESSIONS_COMMANDS.findPayment);

  constructor(private readonly services: ServiceClient) {}

  async find(command: FindPaymentCommand, correlationId: string): Promise<SessionPaymentResource | null> {
    try {
      return await this.services.request<SessionPaymentResource>(this.pattern, command, { correlationId });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return null;
      throw error;
    }
  }
}
