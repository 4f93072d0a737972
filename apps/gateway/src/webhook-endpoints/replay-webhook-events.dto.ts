import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';

// A full date and time with a zone: a bare date or local time would mean different instants to each side.
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const MESSAGE = 'must be an ISO 8601 date and time with a zone, e.g. 2025-01-31T12:00:00Z';

/** POST /api/v1/webhook-endpoints/{id}/replay: every event of [from, to) is sent again. */
export class ReplayWebhookEventsDto {
  @ApiProperty({ type: String, format: 'date-time', description: 'start (inclusive), within the last 30 days' })
  @Matches(ISO_DATE_TIME, { message: `from ${MESSAGE}` })
  from!: string;

  @ApiProperty({ type: String, format: 'date-time', description: 'end (exclusive), after from' })
  @Matches(ISO_DATE_TIME, { message: `to ${MESSAGE}` })
  to!: string;
}
