import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PUBLIC_EVENT_TYPES } from '@payments/events';
import { ArrayNotEmpty, ArrayUnique, IsArray, IsIn, IsNotEmpty, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';

export const WEBHOOK_EVENT_TYPES = Object.keys(PUBLIC_EVENT_TYPES);

/** An endpoint's `events`: null or left out = every type, else distinct public types. */
function EventTypes(description: string): PropertyDecorator {
  // Applied in this order, as stacked decorators are from the bottom up: the checks report as they always did.
  return applyDecorators(
    IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: `events must each be one of ${WEBHOOK_EVENT_TYPES.join(', ')}.` }),
    ArrayUnique({ message: 'events must not repeat a type.' }),
    ArrayNotEmpty(),
    IsArray(),
    IsOptional(),
    ApiPropertyOptional({ type: [String], enum: WEBHOOK_EVENT_TYPES, uniqueItems: true, nullable: true, description }),
  );
}

/** POST /api/v1/webhook-endpoints. Unknown fields are refused. */
export class CreateWebhookEndpointDto {
  @ApiProperty({
    type: String,
    maxLength: 2048,
    example: 'https://shop.example/webhooks',
    description: 'https URL of a public address (checked now, and again at each delivery)',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  url!: string;

  @EventTypes('event types to deliver; omitted or null = every type')
  events?: string[] | null;
}

/** PATCH /api/v1/webhook-endpoints/:id: what is given changes, what is left out stays. Unknown fields are refused. */
export class UpdateWebhookEndpointDto {
  @ApiPropertyOptional({
    type: String,
    maxLength: 2048,
    example: 'https://shop.example/webhooks',
    description: 'new https URL of a public address (checked now, and again at each delivery); what is still to be delivered goes there',
  })
  // Not IsOptional, which would let null through as "left out".
  @ValidateIf((body: UpdateWebhookEndpointDto) => body.url !== undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  url?: string;

  @EventTypes('event types to deliver from now on; null = every type. Events of a type added that occurred since the change are delivered')
  events?: string[] | null;
}
