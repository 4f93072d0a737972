// The ledger's parts, built in one place: the Nest module, the tests and the benchmark all call createLedger.
import { STREAMS, topicName } from '@payments/events';
import type { DataSource } from 'typeorm';
import { BalanceHandlers } from './balances/balance.handlers';
import { JournalRepository } from './journal/journal.repository';
import { BookingEventsHandler } from './bookings/booking-events.handler';
import { WalletHandlers } from './wallets/wallet.handlers';
import { WalletRepository } from './wallets/wallet.repository';

export interface Ledger {
  journal: JournalRepository;
  bookings: BookingEventsHandler;
  balances: BalanceHandlers;
  wallets: WalletHandlers;
}

export function createLedger(dataSource: DataSource, settings: { schema: string; namespace: string }): Ledger {
  const journal = new JournalRepository(dataSource, settings.schema, topicName(settings.namespace, STREAMS.ledger));
  return { journal, bookings: new BookingEventsHandler(journal), balances: new BalanceHandlers(journal), wallets: new WalletHandlers(new WalletRepository(journal)) };
}
