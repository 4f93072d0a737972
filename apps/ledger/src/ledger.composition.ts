// The ledger's parts, built in one place: the Nest module, the tests and the benchmark all call createLedger.
import type { DataSource } from 'typeorm';
import { BalanceHandlers } from './balances/balance.handlers';
import { JournalRepository } from './journal/journal.repository';
import { PaymentEventsHandler } from './payments/payment-events.handler';

export interface Ledger {
  journal: JournalRepository;
  payments: PaymentEventsHandler;
  balances: BalanceHandlers;
}

export function createLedger(dataSource: DataSource, schema: string): Ledger {
  const journal = new JournalRepository(dataSource, schema);
  return { journal, payments: new PaymentEventsHandler(journal), balances: new BalanceHandlers(journal) };
}
