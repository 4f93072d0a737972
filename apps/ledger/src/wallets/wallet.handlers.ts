import {
  LEDGER_COMMANDS,
  type CreditWalletCommand,
  type GetWalletCommand,
  type ListWalletTransactionsCommand,
  type PayFromWalletCommand,
  type PayFromWalletReply,
  type TopUpWalletCommand,
  type WalletBalanceResource,
  type WalletCreditReply,
  type WalletScope,
  type WalletTransactionList,
  type WalletTransactionResource,
} from '@payments/contracts';
import { formatMoney, parseMoneyString } from '@payments/money';
import { ApiError } from '@payments/platform';
import { parseCommand } from '../balances/command-input';
import {
  bookWalletCredit,
  bookWalletPayment,
  bookWalletTopUp,
  BookingRefused,
  walletInEnvironment,
  walletShownCents,
  walletTransactionType,
  type Posting,
} from '../domain';
import { postingsWritten, walletPayments } from '../shared/ledger-metrics';
import { WalletPaymentConflict, type StoredWalletPosting, type WalletRepository, type WalletStatementLine } from './wallet.repository';

/**
 * The wallet commands: sessions pays from a wallet and credits top-ups, operators credit, the wallet page reads.
 * Each command is checked against its schema first; a wallet id of the other environment is refused.
 */
export class WalletHandlers {
  constructor(private readonly wallets: WalletRepository) {}

  /** `wallets.pay`: paid (one posting) or insufficient_funds, the first answer per payment id for good. */
  async pay(body: unknown): Promise<PayFromWalletReply> {
    const command = scoped(parseCommand<PayFromWalletCommand>(LEDGER_COMMANDS.payFromWallet, body));
    let posting: Posting;
    try {
      ({ posting } = bookWalletPayment({
        walletId: command.wallet_id,
        merchantId: command.merchant_id,
        environment: command.environment,
        source: command.source,
        paymentId: command.payment_id,
        method: command.method,
        amount: command.amount,
        fee: command.fee,
        net: command.net,
        feeRateBps: command.fee_rate_bps,
        occurredAt: new Date().toISOString(),
      }));
    } catch (error) {
      if (!(error instanceof BookingRefused)) throw error;
      throw new ApiError('invalid_request', `The payment's amounts do not add up: ${error.message}`, error.reason === 'fee_mismatch' ? 'fee' : 'amount');
    }
    let result: Awaited<ReturnType<WalletRepository['pay']>>;
    try {
      result = await this.wallets.pay({ ...posting, walletId: command.wallet_id, paymentId: command.payment_id, merchantId: command.merchant_id });
    } catch (error) {
      if (!(error instanceof WalletPaymentConflict)) throw error;
      throw new ApiError('invalid_request', `payment_id ${command.payment_id} cannot be paid from this wallet: ${error.message}.`, 'payment_id');
    }
    const { answer, repeat } = result;
    walletPayments.inc({ outcome: repeat ? 'repeat' : answer.outcome });
    if (!repeat && answer.outcome === 'paid') postingsWritten.inc({ kind: 'payment' });
    const balance = formatMoney(answer.balanceCents);
    return answer.outcome === 'paid' ? { outcome: 'paid', posting_id: answer.postingId!, balance } : { outcome: 'insufficient_funds', balance };
  }

  /** `wallets.credit`: an operator's credit, once per wallet and key; the same key for another credit is refused. */
  async credit(body: unknown): Promise<WalletCreditReply> {
    const command = scoped(parseCommand<CreditWalletCommand>(LEDGER_COMMANDS.creditWallet, body));
    const amountCents = money(command.amount);
    const description = command.description?.trim() ? command.description : null;
    const posting = bookWalletCredit({ walletId: command.wallet_id, environment: command.environment, key: command.key, amountCents, description, occurredAt: new Date().toISOString() });
    return this.writeCredit(posting, command.wallet_id, (stored) =>
      stored.amountCents !== BigInt(amountCents) || stored.description !== description
        ? `key ${command.key} was used for another credit of this wallet (${formatMoney(stored.amountCents)}${stored.description ? `, "${stored.description}"` : ''}): use a new key`
        : null,
    'key');
  }

  /** `wallets.top-up`: a verified card top-up, credited once per top-up reference. */
  async topUp(body: unknown): Promise<WalletCreditReply> {
    const command = scoped(parseCommand<TopUpWalletCommand>(LEDGER_COMMANDS.topUpWallet, body));
    const amountCents = money(command.amount);
    const posting = bookWalletTopUp({ walletId: command.wallet_id, environment: command.environment, topUpId: command.top_up_id, amountCents, occurredAt: new Date().toISOString() });
    return this.writeCredit(posting, command.wallet_id, (stored) =>
      stored.kind !== 'wallet_top_up' || stored.walletId !== command.wallet_id || stored.environment !== command.environment || stored.amountCents !== BigInt(amountCents)
        ? `top_up_id ${command.top_up_id} was credited to another wallet or with another amount`
        : null,
    'top_up_id');
  }

  /** `wallets.get`: the wallet's balance (0.00 for a wallet never credited). */
  async get(body: unknown): Promise<WalletBalanceResource> {
    const command = scoped(parseCommand<GetWalletCommand>(LEDGER_COMMANDS.getWallet, body));
    const cents = await this.wallets.balanceCents(command.wallet_id, command.environment);
    return { object: 'wallet_balance', wallet_id: command.wallet_id, environment: command.environment, available: formatMoney(cents), currency: 'USD' };
  }

  /** `wallet-transactions.list`: the wallet's statement, newest first, paged with starting_after. */
  async list(body: unknown): Promise<WalletTransactionList> {
    const command = scoped(parseCommand<ListWalletTransactionsCommand>(LEDGER_COMMANDS.listWalletTransactions, body));
    if (command.starting_after && !(await this.wallets.isWalletPosting(command.wallet_id, command.environment, command.starting_after))) {
      throw new ApiError('invalid_request', 'starting_after is not a transaction of this wallet', 'starting_after');
    }
    const { lines, hasMore } = await this.wallets.statement({
      walletId: command.wallet_id,
      environment: command.environment,
      limit: command.limit,
      ...(command.starting_after ? { startingAfter: command.starting_after } : {}),
    });
    return { object: 'list', data: lines.map(toWalletTransaction), has_more: hasMore };
  }

  private async writeCredit(
    posting: Posting,
    walletId: string,
    reused: (stored: StoredWalletPosting) => string | null,
    param: string,
  ): Promise<WalletCreditReply> {
    const { created, stored, balanceCents } = await this.wallets.credit({ ...posting, walletId });
    if (!created) {
      const conflict = reused(stored);
      if (conflict) throw new ApiError('invalid_request', conflict, param);
    } else {
      postingsWritten.inc({ kind: posting.kind });
    }
    return { posting_id: stored.id, created, balance: formatMoney(balanceCents) };
  }
}

/** A posting of the wallet as the customer reads it. */
export function toWalletTransaction(line: WalletStatementLine): WalletTransactionResource {
  const type = walletTransactionType(line.kind);
  if (!type) throw new Error(`posting ${line.id} (${line.kind}) cannot be on a wallet's statement`);
  return {
    id: line.id,
    object: 'wallet_transaction',
    type,
    amount: formatMoney(walletShownCents(line.walletEntryCents)),
    currency: 'USD',
    merchant_id: line.merchantId,
    // A credit's key is the operator's, not the customer's to see.
    source: type === 'credit' ? null : line.source,
    payment_id: line.paymentId,
    description: line.description,
    created_at: line.createdAt.toISOString(),
  };
}

function scoped<T extends WalletScope>(command: T): T {
  if (!walletInEnvironment(command.wallet_id, command.environment)) {
    throw new ApiError('invalid_request', `wallet_id is not a wallet of the ${command.environment} environment`, 'wallet_id');
  }
  return command;
}

/** A MoneyString the schema already checked, in cents. */
function money(value: string): number {
  const parsed = parseMoneyString(value, { minCents: 1 });
  if (!parsed.ok) throw new ApiError('invalid_request', `amount ${parsed.message}`, 'amount');
  return parsed.cents;
}
