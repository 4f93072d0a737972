import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ROLL_OVERLAP_HOURS } from './webhook-endpoint.model';

/** POST /api/v1/webhook-endpoints/{id}/roll-secret (the body is optional). */
export class RollWebhookSecretDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: ROLL_OVERLAP_HOURS,
    default: ROLL_OVERLAP_HOURS,
    description: 'hours the previous secret keeps signing (0 = it stops now)',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(ROLL_OVERLAP_HOURS)
  expires_in_hours?: number;
}
