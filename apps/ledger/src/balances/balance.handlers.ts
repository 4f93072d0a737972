import {
  LEDGER_COMMANDS,
  type BalanceResource,
  type BalanceTransactionList,
  type GetBalanceCommand,
  type ListBalanceTransactionsCommand,
} from '@payments/contracts';
import { ApiError } from '@payments/platform';
import { formatMoney } from '@payments/money';
import type { JournalRepository, StoredPosting } from '../journal/journal.repository';
import { toBalanceTransaction } from './balance-transaction';
import { parseCommand } from './command-input';

/**
 * Balance reads: straight from the balances the postings keep current, never a scan of the journal. Each command is
 * checked against its schema first: the scope comes from it, so nothing unchecked reaches a query.
 */
export class BalanceHandlers {
  constructor(private readonly journal: JournalRepository) {}

  async getBalance(body: unknown): Promise<BalanceResource> {
    const command = parseCommand<GetBalanceCommand>(LEDGER_COMMANDS.getBalance, body);
    const cents = await this.journal.availableCents(command.merchant_id, command.environment);
    return { object: 'balance', environment: command.environment, available: [{ amount: formatMoney(cents), currency: 'USD' }] };
  }

  async listBalanceTransactions(body: unknown): Promise<BalanceTransactionList> {
    const command = parseCommand<ListBalanceTransactionsCommand>(LEDGER_COMMANDS.listBalanceTransactions, body);
    if (command.starting_after && command.ending_before) {
      throw new ApiError('invalid_request', 'Use starting_after or ending_before, not both.', 'ending_before');
    }
    const { postings, hasMore } = await this.journal.listPostings({
      merchantId: command.merchant_id,
      environment: command.environment,
      limit: command.limit,
      ...(command.starting_after ? { startingAfter: await this.cursor(command, command.starting_after, 'starting_after') } : {}),
      ...(command.ending_before ? { endingBefore: await this.cursor(command, command.ending_before, 'ending_before') } : {}),
      ...(command.type ? { type: command.type } : {}),
      ...(command.created_gte ? { createdGte: dateParam(command.created_gte, 'created[gte]') } : {}),
      ...(command.created_lt ? { createdLt: dateParam(command.created_lt, 'created[lt]') } : {}),
    });
    return { object: 'list', data: postings.map(toBalanceTransaction), has_more: hasMore };
  }

  /** A cursor must be one of the caller's own transactions in the same environment; anything else is a 400 that names nothing. */
  private async cursor(scope: GetBalanceCommand, id: string, param: string): Promise<StoredPosting> {
    const posting = await this.journal.findPosting(id);
    if (!posting || posting.merchantId !== scope.merchant_id || posting.environment !== scope.environment) {
      throw new ApiError('invalid_request', `${param} is not a balance transaction of this account`, param);
    }
    return posting;
  }
}

/** A date filter as a Date; one no parser reads is the caller's mistake (400), never an invalid date in a query. */
function dateParam(value: string, param: string): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new ApiError('invalid_request', `${param} must be an ISO 8601 date-time.`, param);
  return date;
}
