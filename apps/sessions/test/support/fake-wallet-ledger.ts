// The ledger's wallet commands as a port stand-in, in process: final answers per payment id and one credit per
// top-up, like the real ledger, with switches to make it unreachable or lose an answer after posting.
import type { PayFromWalletCommand, PayFromWalletReply, TopUpWalletCommand, WalletCreditReply } from '@payments/contracts';
import { formatMoney, parseMoneyString } from '@payments/money';
import type { WalletLedger } from '../../src/wallets/wallet-ledger';

const cents = (money: string) => {
  const parsed = parseMoneyString(money, { minCents: 0 });
  if (!parsed.ok) throw new Error(`bad money ${money}`);
  return parsed.cents;
};

export class FakeWalletLedger implements WalletLedger {
  readonly balances = new Map<string, number>();
  readonly payments = new Map<string, { command: PayFromWalletCommand; reply: PayFromWalletReply }>();
  readonly topUps = new Map<string, TopUpWalletCommand>();
  payCalls = 0;
  topUpCalls = 0;
  /** Unreachable: every command fails without acting. */
  down = false;
  /** The next `n` pay commands are posted, then their answer is lost (a crash between the debit and the answer). */
  loseAnswers = 0;
  /** Each command waits this long first (concurrent callers overlap). */
  delayMs = 0;

  credit(walletId: string, amount: string): void {
    this.balances.set(walletId, (this.balances.get(walletId) ?? 0) + cents(amount));
  }

  balanceOf(walletId: string): string {
    return formatMoney(this.balances.get(walletId) ?? 0);
  }

  async pay(command: PayFromWalletCommand): Promise<PayFromWalletReply> {
    this.payCalls += 1;
    if (this.delayMs) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (this.down) throw new Error('ledger unreachable');
    const known = this.payments.get(command.payment_id);
    let reply: PayFromWalletReply;
    if (known) {
      reply = known.reply;
    } else {
      const balance = this.balances.get(command.wallet_id) ?? 0;
      const amount = cents(command.amount);
      if (cents(command.fee) + cents(command.net) !== amount) throw new Error('fee + net is not the amount');
      reply =
        balance >= amount
          ? { outcome: 'paid', posting_id: `pst_${command.payment_id}`, balance: formatMoney(balance - amount) }
          : { outcome: 'insufficient_funds', balance: formatMoney(balance) };
      if (reply.outcome === 'paid') this.balances.set(command.wallet_id, balance - amount);
      this.payments.set(command.payment_id, { command, reply });
    }
    if (this.loseAnswers > 0) {
      this.loseAnswers -= 1;
      throw new Error('answer lost');
    }
    return reply;
  }

  async topUp(command: TopUpWalletCommand): Promise<WalletCreditReply> {
    this.topUpCalls += 1;
    if (this.delayMs) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (this.down) throw new Error('ledger unreachable');
    const created = !this.topUps.has(command.top_up_id);
    if (created) {
      this.topUps.set(command.top_up_id, command);
      this.credit(command.wallet_id, command.amount);
    }
    return { posting_id: `pst_${command.top_up_id}`, created, balance: this.balanceOf(command.wallet_id) };
  }
}
