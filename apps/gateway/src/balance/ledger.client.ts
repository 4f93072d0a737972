import { Injectable } from '@nestjs/common';
import {
  LEDGER_COMMANDS,
  LEDGER_SERVICE,
  type BalanceResource,
  type BalanceTransactionList,
  type GetBalanceCommand,
  type LedgerCommandName,
  type ListBalanceTransactionsCommand,
  type CreditWalletCommand,
  type GetWalletCommand,
  type ListWalletTransactionsCommand,
  type WalletBalanceResource,
  type WalletCreditReply,
  type WalletTransactionList,
} from '@payments/contracts';
import { commandPattern, ServiceClient, type CommandOptions } from '@payments/platform';

/** Typed commands to the ledger: reads (safe to send again: they change nothing) and operators' wallet credits (once per key). */
@Injectable()
export class LedgerClient {
  private readonly patterns = new Map<LedgerCommandName, string>(
    Object.values(LEDGER_COMMANDS).map((name) => [name, commandPattern(LEDGER_SERVICE, name)]),
  );

  constructor(private readonly services: ServiceClient) {}

  getBalance(command: GetBalanceCommand, caller: CommandOptions): Promise<BalanceResource> {
    return this.services.request(this.patterns.get(LEDGER_COMMANDS.getBalance)!, command, caller);
  }

  listBalanceTransactions(command: ListBalanceTransactionsCommand, caller: CommandOptions): Promise<BalanceTransactionList> {
    return this.services.request(this.patterns.get(LEDGER_COMMANDS.listBalanceTransactions)!, command, caller);
  }

  /** A customer wallet's balance (the checkout and the wallet page). */
  getWallet(command: GetWalletCommand, caller: CommandOptions): Promise<WalletBalanceResource> {
    return this.services.request(this.patterns.get(LEDGER_COMMANDS.getWallet)!, command, caller);
  }

  /** A customer wallet's statement, newest first. */
  listWalletTransactions(command: ListWalletTransactionsCommand, caller: CommandOptions): Promise<WalletTransactionList> {
    return this.services.request(this.patterns.get(LEDGER_COMMANDS.listWalletTransactions)!, command, caller);
  }

  /** An operator's credit (admin CLI): the ledger credits once per wallet, environment and key. */
  creditWallet(command: CreditWalletCommand, caller: CommandOptions): Promise<WalletCreditReply> {
    return this.services.request(this.patterns.get(LEDGER_COMMANDS.creditWallet)!, command, caller);
  }
}
