import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

export const BALANCE_TRANSACTION_ID = /^txn_[A-Za-z0-9_-]{24}$/;

/** Query of GET /api/v1/balance-transactions: newest first; `starting_after` pages on, `ending_before` back. */
export class ListBalanceTransactionsQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 10 })
  @IsOptional()
  // Query values are strings; only plain digits become a number (no implicit conversion of "1e2" or " 5").
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value))
  @IsInt({ message: 'limit must be an integer from 1 to 100.' })
  @Min(1, { message: 'limit must be an integer from 1 to 100.' })
  @Max(100, { message: 'limit must be an integer from 1 to 100.' })
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
  'created[gte]'?: string;

  @ApiPropertyOptional({ name: 'created[lt]', type: String, format: 'date-time', description: 'created before (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'created[lt] must be an ISO 8601 date-time.' })
  'created[lt]'?: string;
}
