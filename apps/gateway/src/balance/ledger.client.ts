import { Injectable } from '@nestjs/common';
import {
  LEDGER_COMMANDS,
  LEDGER_SERVICE,
  type BalanceResource,
  type BalanceTransactionList,
  type GetBalanceCommand,
  type LedgerCommandName,
  type ListBalanceTransactionsCommand,
} from '@payments/contracts';
import { commandPattern, ServiceClient, type CommandOptions } from '@payments/platform';

/** Typed reads from the ledger (safe to send again: they change nothing). */
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
}
