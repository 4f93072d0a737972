import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { ListLimit } from '../validation/list-limit.decorator';

export const DELIVERY_ID = /^wd_[A-Za-z0-9]{1,64}$/;

/** Query of GET /api/v1/webhook-endpoints/{id}/deliveries: newest first, `starting_after` pages on. */
export class ListDeliveriesQuery {
  @ListLimit(50)
  limit?: number;

  @ApiPropertyOptional({ type: String, pattern: DELIVERY_ID.source, description: 'id of the last delivery of the previous page' })
  @IsOptional()
  @IsString()
  @Matches(DELIVERY_ID, { message: 'starting_after must be a delivery id (wd_…).' })
  starting_after?: string;
}
