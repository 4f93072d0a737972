import { SESSIONS_COMMANDS, type SessionPaymentResource } from '@payments/contracts';
import { ApiError } from '@payments/platform';
import type { DataSource } from 'typeorm';
import { parseCommand } from '../commands/command-input';
import type { PaymentsRepository } from './payments.repository';

/** Payments by id for the refunds service, which asks when a payment's event has not reached it yet. */
export class PaymentHandlers {
  constructor(
    private readonly dataSource: DataSource,
    private readonly payments: PaymentsRepository,
  ) {}

  async find(body: unknown): Promise<SessionPaymentResource> {
    const { command, ...scope } = parseCommand(SESSIONS_COMMANDS.findPayment, body);
    const payment = await this.payments.find(this.dataSource, scope, command.id as string);
    if (!payment) throw new ApiError('not_found', 'No such payment.', 'id');
    return payment;
  }
}
