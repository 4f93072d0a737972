// The refunds service's parts, built in one place: the Nest module and the tests call createRefunds.
import { STREAMS, topicName } from '@payments/events';
import { OutboxWriter } from '@payments/messaging';
import type { DataSource } from 'typeorm';
import { PaymentEventsHandler } from './payments/payment-events.handler';
import { ProviderRefundSettlement } from './refunds/provider-refunds';
import { RefundHandlers } from './refunds/refund.handlers';
import { RefundsRepository } from './refunds/refunds.repository';
import type { SessionsPayments } from './sessions-lookup/sessions-payments';

export interface Refunds {
  refunds: RefundHandlers;
  payments: PaymentEventsHandler;
  /** Refunds pending at their provider (the background check's work). */
  providerRefunds: ProviderRefundSettlement;
}

export function createRefunds(dataSource: DataSource, settings: { schema: string; namespace: string }, sessions: SessionsPayments): Refunds {
  const repository = new RefundsRepository(settings.schema);
  const outbox = new OutboxWriter({ schema: settings.schema });
  const topic = topicName(settings.namespace, STREAMS.refunds);
  const providerRefunds = new ProviderRefundSettlement(dataSource, repository, sessions, outbox, topic);
  return {
    refunds: new RefundHandlers(dataSource, repository, sessions, outbox, topic, providerRefunds),
    payments: new PaymentEventsHandler(repository),
    providerRefunds,
  };
}
