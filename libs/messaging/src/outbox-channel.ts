import { assertSchemaName } from '@payments/database';

/** LISTEN/NOTIFY channel the writer signals after appending to a schema's outbox. */
export function outboxChannel(schema: string): string {
  return `${assertSchemaName(schema)}_outbox`;
}
