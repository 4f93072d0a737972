import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString, Matches, ValidateBy } from 'class-validator';
import { ListLimit } from '../validation/list-limit.decorator';

export const BALANCE_TRANSACTION_ID = /^txn_[A-Za-z0-9_-]{24}$/;

/**
 * ISO 8601 forms a date-time can be read in (`2026-11-26`, `2026-11-26T16:58:00Z`, with an offset): IsISO8601 also
 * takes week and ordinal dates, the basic format and hour-only times, which no date parser here reads (they
 * reached the ledger as an invalid date: a 500).
 */
const ReadableDateTime = (param: string): PropertyDecorator =>
  ValidateBy({
    name: 'isReadableDateTime',
    validator: { validate: (value: unknown) => typeof value === 'string' && !Number.isNaN(Date.parse(value)), defaultMessage: () => `${param} must be an ISO 8601 date-time.` },
  });

/** Query of GET /api/v1/balance-transactions: newest first; `starting_after` pages on, `ending_before` back. */
export class ListBalanceTransactionsQuery {
  @ListLimit(10)
  limit?: number;

  @ApiPropertyOptional({ type: String, pattern: BALANCE_TRANSACTION_ID.source, description: 'id of the last transaction of the previous page' })
  @IsOptional()
  @IsString()
  @Matches(BALANCE_TRANSACTION_ID, { message: 'starting_after must be a balance transaction id (txn_…).' })
  starting_after?: string;

  @ApiPropertyOptional({ type: String, pattern: BALANCE_TRANSACTION_ID.source, description: 'id of the first transaction of the next page' })
  @IsOptional()
  @IsString()
  @Matches(BALANCE_TRANSACTION_ID, { message: 'ending_before must be a balance transaction id (txn_…).' })
  ending_before?: string;

  @ApiPropertyOptional({ enum: ['payment', 'refund', 'adjustment'] })
  @IsOptional()
  @IsIn(['payment', 'refund', 'adjustment'], { message: 'type must be one of payment, refund, adjustment.' })
  type?: 'payment' | 'refund' | 'adjustment';

  @ApiPropertyOptional({ name: 'created[gte]', type: String, format: 'date-time', description: 'created at or after (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'created[gte] must be an ISO 8601 date-time.' })
  @ReadableDateTime('created[gte]')
  'created[gte]'?: string;

  @ApiPropertyOptional({ name: 'created[lt]', type: String, format: 'date-time', description: 'created before (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'created[lt] must be an ISO 8601 date-time.' })
  @ReadableDateTime('created[lt]')
  'created[lt]'?: string;
}
