import { Injectable } from '@nestjs/common';
import {
  REFUNDS_COMMANDS,
  REFUNDS_SERVICE,
  type GetPaymentCommand,
  type GetRefundCommand,
  type ListPaymentsCommand,
  type ListRefundsCommand,
  type ListResource,
  type PaymentResource,
  type RefundResource,
  type RefundsCommandMap,
  type RefundsCommandName,
} from '@payments/contracts';
import { commandPattern, ServiceClient, type CommandOptions } from '@payments/platform';

/** Typed commands to the refunds service. */
@Injectable()
export class RefundsClient {
  private readonly patterns = new Map<RefundsCommandName, string>(Object.values(REFUNDS_COMMANDS).map((name) => [name, commandPattern(REFUNDS_SERVICE, name)]));

  constructor(private readonly services: ServiceClient) {}

  send<N extends RefundsCommandName>(name: N, body: RefundsCommandMap[N]['body'], caller: CommandOptions): Promise<RefundsCommandMap[N]['reply']> {
    return this.services.request(this.patterns.get(name)!, body, caller);
  }

  /** Newest first (paid_at, id), filtered; the API's params (limit, starting_after) answer as GET /payments does. */
  listPayments(command: ListPaymentsCommand, caller: CommandOptions): Promise<ListResource<PaymentResource>> {
    return this.send(REFUNDS_COMMANDS.listPayments, command, caller);
  }

  /** Newest first, filtered, optionally of one payment. */
  listRefunds(command: ListRefundsCommand, caller: CommandOptions): Promise<ListResource<RefundResource>> {
    return this.send(REFUNDS_COMMANDS.listRefunds, command, caller);
  }

  /** A payment with its refunds; not_found for another merchant's or environment's. */
  getPayment(command: GetPaymentCommand, caller: CommandOptions): Promise<PaymentResource> {
    return this.send(REFUNDS_COMMANDS.getPayment, command, caller);
  }

  getRefund(command: GetRefundCommand, caller: CommandOptions): Promise<RefundResource> {
    return this.send(REFUNDS_COMMANDS.getRefund, command, caller);
  }
}
