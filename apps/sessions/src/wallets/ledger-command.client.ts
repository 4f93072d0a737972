import { LEDGER_COMMANDS, LEDGER_SERVICE, type PayFromWalletCommand, type PayFromWalletReply, type TopUpWalletCommand, type WalletCreditReply } from '@payments/contracts';
import { ApiError, commandPattern, type ServiceClient } from '@payments/platform';
import { LedgerRefused, type WalletLedger } from './wallet-ledger';

/**
 * The ledger service over the command transport (LEDGER_URL). Each command's id is its key (the payment id, the
 * top-up's reference), so a command whose answer was lost is sent again safely, by the transport or by the re-drive.
 */
export class LedgerCommandClient implements WalletLedger {
  constructor(private readonly client: ServiceClient) {}

  pay(command: PayFromWalletCommand): Promise<PayFromWalletReply> {
    return this.send<PayFromWalletReply>(LEDGER_COMMANDS.payFromWallet, command, `wallet-pay-${command.payment_id}`);
  }

  topUp(command: TopUpWalletCommand): Promise<WalletCreditReply> {
    return this.send<WalletCreditReply>(LEDGER_COMMANDS.topUpWallet, command, `wallet-top-up-${command.top_up_id}`);
  }

  private async send<T>(name: string, body: unknown, commandId: string): Promise<T> {
    try {
      return await this.client.request<T>(commandPattern(LEDGER_SERVICE, name), body, { correlationId: commandId, commandId });
    } catch (error) {
      // A 4xx is the ledger's refusal (it posted nothing); a 503 (unreachable, timed out) or a 500 is no answer.
      if (error instanceof ApiError && error.status < 500) throw new LedgerRefused(error.code, error.message);
      throw error;
    }
  }
}
