// The balance page's list: balance transactions on the ledger's command, with the filters it takes (type, dates)
// and paging both ways.
import type { BalanceTransactionResource, ListBalanceTransactionsCommand } from '@payments/contracts';
import { BALANCE_TRANSACTION_ID } from '../../balance/list-balance-transactions.query';
import type { CsvValue } from '../operations/csv';
import { createdBounds, type ListRequest, type ListShape } from '../operations/list-query';
import type { OperationsScope } from '../operations/object-history';

export const BALANCE_TRANSACTIONS_SHAPE: ListShape = {
  filters: ['type', 'from', 'to'],
  choices: ['payment', 'refund', 'adjustment'],
  idPattern: BALANCE_TRANSACTION_ID,
  pagesBack: true,
};

/** The ledger's list command for a filter form and cursor (the API's query maps to the same fields). */
export function balanceTransactionsCommand(scope: OperationsScope, request: Pick<ListRequest, 'filters' | 'cursor'>, limit: number): ListBalanceTransactionsCommand {
  const { filters, cursor } = request;
  return {
    ...scope,
    limit,
    ...(cursor.starting_after ? { starting_after: cursor.starting_after } : cursor.ending_before ? { ending_before: cursor.ending_before } : {}),
    ...(filters.type ? { type: filters.type as ListBalanceTransactionsCommand['type'] } : {}),
    ...createdBounds(filters),
  };
}

export const BALANCE_CSV_HEADER = ['id', 'type', 'amount', 'fee', 'net', 'currency', 'source', 'payment_id', 'description', 'created_at'];

export function balanceCsvRow(txn: BalanceTransactionResource): CsvValue[] {
  return [txn.id, txn.type, txn.amount, txn.fee, txn.net, txn.currency, txn.source, txn.payment_id, txn.description, txn.created_at];
}
