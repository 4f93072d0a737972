import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { LEDGER_COMMANDS, LEDGER_SERVICE, type BalanceResource, type BalanceTransactionList } from '@payments/contracts';
import { commandPattern, serveCommand, type RpcReply, type RpcRequest } from '@payments/platform';
import { BalanceHandlers } from './balance.handlers';

/** Balance reads over the command transport; the handlers check each command against its schema (the scope is the caller's key). */
@Controller()
export class LedgerController {
  constructor(private readonly balances: BalanceHandlers) {}

  @MessagePattern(commandPattern(LEDGER_SERVICE, LEDGER_COMMANDS.getBalance))
  getBalance(@Payload() request: RpcRequest<unknown>): Promise<RpcReply<BalanceResource>> {
    return serveCommand(request, (body) => this.balances.getBalance(body));
  }

  @MessagePattern(commandPattern(LEDGER_SERVICE, LEDGER_COMMANDS.listBalanceTransactions))
  listBalanceTransactions(@Payload() request: RpcRequest<unknown>): Promise<RpcReply<BalanceTransactionList>> {
    return serveCommand(request, (body) => this.balances.listBalanceTransactions(body));
  }
}
