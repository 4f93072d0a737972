import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  LEDGER_COMMANDS,
  LEDGER_SERVICE,
  type BalanceResource,
  type BalanceTransactionList,
  type GetBalanceCommand,
  type ListBalanceTransactionsCommand,
} from '@payments/contracts';
import { commandPattern, serveCommand, type RpcReply, type RpcRequest } from '@payments/platform';
import { BalanceHandlers } from './balance.handlers';

/** Balance reads over the command transport (the gateway has checked the query; the scope is the caller's key). */
@Controller()
export class LedgerController {
  constructor(private readonly balances: BalanceHandlers) {}

  @MessagePattern(commandPattern(LEDGER_SERVICE, LEDGER_COMMANDS.getBalance))
  getBalance(@Payload() request: RpcRequest<GetBalanceCommand>): Promise<RpcReply<BalanceResource>> {
    return serveCommand(request, (body) => this.balances.getBalance(body));
  }

  @MessagePattern(commandPattern(LEDGER_SERVICE, LEDGER_COMMANDS.listBalanceTransactions))
  listBalanceTransactions(@Payload() request: RpcRequest<ListBalanceTransactionsCommand>): Promise<RpcReply<BalanceTransactionList>> {
    return serveCommand(request, (body) => this.balances.listBalanceTransactions(body));
  }
}
