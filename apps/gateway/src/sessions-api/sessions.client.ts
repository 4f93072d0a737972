import { Injectable } from '@nestjs/common';
import {
  CreateInvoiceCommand,
  CreatePaymentIntentCommand,
  GetPaymentIntentCommand,
  InvoiceResource,
  PaymentIntentResource,
  SESSIONS_COMMANDS,
  SESSIONS_SERVICE,
  SessionsCommandName,
  SimulateInvoiceCommand,
  SimulateInvoiceReply,
  SimulatePaymentIntentCommand,
} from '@payments/contracts';
import { commandTopic, ServiceClient } from '@payments/platform';

/** Typed commands to the sessions service over Kafka request/reply. */
@Injectable()
export class SessionsClient {
  private readonly topics = new Map<SessionsCommandName, string>(
    Object.values(SESSIONS_COMMANDS).map((name) => [name, commandTopic(SESSIONS_SERVICE, name)]),
  );

  constructor(private readonly services: ServiceClient) {}

  createPaymentIntent(command: CreatePaymentIntentCommand, correlationId: string): Promise<PaymentIntentResource> {
    return this.send(SESSIONS_COMMANDS.createPaymentIntent, command, correlationId);
  }

  getPaymentIntent(command: GetPaymentIntentCommand, correlationId: string): Promise<PaymentIntentResource> {
    return this.send(SESSIONS_COMMANDS.getPaymentIntent, command, correlationId);
  }

  simulatePaymentIntent(command: SimulatePaymentIntentCommand, correlationId: string): Promise<PaymentIntentResource> {
    return this.send(SESSIONS_COMMANDS.simulatePaymentIntent, command, correlationId);
  }

  cancelPaymentIntent(command: GetPaymentIntentCommand, correlationId: string): Promise<PaymentIntentResource> {
    return this.send(SESSIONS_COMMANDS.cancelPaymentIntent, command, correlationId);
  }

  createInvoice(command: CreateInvoiceCommand, correlationId: string): Promise<InvoiceResource> {
    return this.send(SESSIONS_COMMANDS.createInvoice, command, correlationId);
  }

  getInvoice(command: GetPaymentIntentCommand, correlationId: string): Promise<InvoiceResource> {
    return this.send(SESSIONS_COMMANDS.getInvoice, command, correlationId);
  }

  simulateInvoice(command: SimulateInvoiceCommand, correlationId: string): Promise<SimulateInvoiceReply> {
    return this.send(SESSIONS_COMMANDS.simulateInvoice, command, correlationId);
  }

  private send<T>(name: SessionsCommandName, body: object, correlationId: string): Promise<T> {
    return this.services.request<T>(this.topics.get(name)!, body, correlationId);
  }
}
