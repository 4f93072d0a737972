import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  LEDGER_COMMANDS,
  LEDGER_SERVICE,
  type PayFromWalletReply,
  type WalletBalanceResource,
  type WalletCreditReply,
  type WalletTransactionList,
} from '@payments/contracts';
import { commandPattern, serveCommand, type RpcReply, type RpcRequest } from '@payments/platform';
import { WalletHandlers } from './wallet.handlers';

/** Wallet commands over the command transport; the handlers check each command against its schema. */
@Controller()
export class WalletsController {
  constructor(private readonly wallets: WalletHandlers) {}

  @MessagePattern(commandPattern(LEDGER_SERVICE, LEDGER_COMMANDS.payFromWallet))
  pay(@Payload() request: RpcRequest<unknown>): Promise<RpcReply<PayFromWalletReply>> {
    return serveCommand(request, (body) => this.wallets.pay(body));
  }

  @MessagePattern(commandPattern(LEDGER_SERVICE, LEDGER_COMMANDS.creditWallet))
  credit(@Payload() request: RpcRequest<unknown>): Promise<RpcReply<WalletCreditReply>> {
    return serveCommand(request, (body) => this.wallets.credit(body));
  }

  @MessagePattern(commandPattern(LEDGER_SERVICE, LEDGER_COMMANDS.topUpWallet))
  topUp(@Payload() request: RpcRequest<unknown>): Promise<RpcReply<WalletCreditReply>> {
    return serveCommand(request, (body) => this.wallets.topUp(body));
  }

  @MessagePattern(commandPattern(LEDGER_SERVICE, LEDGER_COMMANDS.getWallet))
  get(@Payload() request: RpcRequest<unknown>): Promise<RpcReply<WalletBalanceResource>> {
    return serveCommand(request, (body) => this.wallets.get(body));
  }

  @MessagePattern(commandPattern(LEDGER_SERVICE, LEDGER_COMMANDS.listWalletTransactions))
  list(@Payload() request: RpcRequest<unknown>): Promise<RpcReply<WalletTransactionList>> {
    return serveCommand(request, (body) => this.wallets.list(body));
  }
}
