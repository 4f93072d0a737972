// The ledger's parts, built in one place: the Nest module, the tests and the benchmark all call createLedger.
import { STREAMS, topicName } from '@payments/events';
import type { DataSource } from 'typeorm';
import { BalanceHandlers } from './balances/balance.handlers';
import { JournalRepository } from './journal/journal.repository';
import { PaymentEventsHandler } from './payments/payment-events.handler';

export interface Ledger {
  journal: JournalRepository;
  payments: PaymentEventsHandler;
  balances: BalanceHandlers;
}

export function createLedger(dataSource: DataSource, settings: { schema: string; namespace: string }): Ledger {
  const journal = new JournalRepository(dataSource, settings.schema, topicName(settings.namespace, STREAMS.ledger));
  return { journal, payments: new PaymentEventsHandler(journal), balances: new BalanceHandlers(journal) };
}
