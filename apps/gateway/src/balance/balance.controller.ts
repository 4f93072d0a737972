import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { BalanceResource, BalanceTransactionList } from '@payments/contracts';
import { ApiError, type CommandOptions } from '@payments/platform';
import { Auth } from '../auth/auth.decorator';
import type { AuthContext } from '../auth/auth-context';
import { Caller } from '../command-clients/command-caller.decorator';
import { ApiErrors } from '../session-routes/api-error.responses';
import { apiValidationPipe } from '../validation/api-validation.pipe';
import { BalanceCache } from './balance-cache';
import { BALANCE_SCHEMA, BALANCE_TRANSACTION_LIST_SCHEMA } from './balance.schemas';
import { LedgerClient } from './ledger.client';
import { ListBalanceTransactionsQuery } from './list-balance-transactions.query';

/** The merchant's balance and the transactions behind it, for the key's environment, read from the ledger. */
@ApiTags('balance')
@ApiBearerAuth()
@Controller('api/v1')
export class BalanceController {
  constructor(
    private readonly ledger: LedgerClient,
    private readonly balances: BalanceCache,
  ) {}

  @Get('balance')
  @ApiOperation({ operationId: 'getBalance', summary: "The merchant's available balance in the key's environment" })
  @ApiResponse({ status: 200, schema: BALANCE_SCHEMA })
  @ApiErrors(401, 403, 429, 503)
  getBalance(@Auth() auth: AuthContext, @Caller() caller: CommandOptions): Promise<BalanceResource> {
    return this.balances.get({ merchant_id: auth.merchantId, environment: auth.environment }, caller);
  }

  @Get('balance-transactions')
  @ApiOperation({ operationId: 'listBalanceTransactions', summary: 'What moved the balance, newest first' })
  @ApiResponse({ status: 200, schema: BALANCE_TRANSACTION_LIST_SCHEMA })
  @ApiErrors(400, 401, 403, 429, 503)
  listBalanceTransactions(
    @Auth() auth: AuthContext,
    @Query(apiValidationPipe({ forbidUnknown: true })) query: ListBalanceTransactionsQuery,
    @Caller() caller: CommandOptions,
  ): Promise<BalanceTransactionList> {
    if (query.starting_after && query.ending_before) {
      throw new ApiError('invalid_request', 'Use starting_after or ending_before, not both.', 'ending_before');
    }
    return this.ledger.listBalanceTransactions(
      {
        merchant_id: auth.merchantId,
        environment: auth.environment,
        limit: query.limit ?? 10,
        ...(query.starting_after ? { starting_after: query.starting_after } : {}),
        ...(query.ending_before ? { ending_before: query.ending_before } : {}),
        ...(query.type ? { type: query.type } : {}),
        ...(query['created[gte]'] ? { created_gte: query['created[gte]'] } : {}),
        ...(query['created[lt]'] ? { created_lt: query['created[lt]'] } : {}),
      },
      caller,
    );
  }
}
