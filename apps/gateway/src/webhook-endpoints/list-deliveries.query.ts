import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

export const DELIVERY_ID = /^wd_[A-Za-z0-9]{1,64}$/;

/** Query of GET /api/v1/webhook-endpoints/{id}/deliveries: newest first, `starting_after` pages on. */
export class ListDeliveriesQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  // Query values are strings; only plain digits become a number (no implicit conversion of "1e2" or " 5").
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value))
  @IsInt({ message: 'limit must be an integer from 1 to 100.' })
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ type: String, pattern: DELIVERY_ID.source, description: 'id of the last delivery of the previous page' })
  @IsOptional()
  @IsString()
  @Matches(DELIVERY_ID, { message: 'starting_after must be a delivery id (wd_…).' })
  starting_after?: string;
}
