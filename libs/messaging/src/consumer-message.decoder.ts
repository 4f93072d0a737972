import { validateEnvelope, type EventEnvelope } from '@payments/events';
import type { IHeaders, KafkaMessage } from 'kafkajs';
import { errorMessage } from './messaging.logger';

/** Where a message sits in Kafka. */
export interface MessageLocation {
  topic: string;
  partition: number;
  offset: string;
}

/** A fetched message, parsed and validated (or not) but not acted on yet. */
export type DecodedMessage =
  | {
      ok: true;
      message: KafkaMessage;
      where: MessageLocation;
      headers: Record<string, string>;
      envelope: EventEnvelope;
      /** Passed over by its headers (see decodeMessage): the envelope holds only the headers' id and type. */
      skipped?: true;
    }
  | { ok: false; message: KafkaMessage; where: MessageLocation; headers: Record<string, string>; reason: string; error: unknown };

export type ValidMessage = Extract<DecodedMessage, { ok: true }>;

const headerString = (value: IHeaders[string]): string | undefined =>
  value === undefined ? undefined : Array.isArray(value) ? value.map(String).join(',') : value.toString();

/**
 * Headers as strings, the value parsed and checked against the envelope schema and its type's data schema. When
 * `acts` says from the `event-type` header (and the others) that the consumer does not act on the event, the value
 * is not read at all: the envelope holds only the headers' id and type (parsing and validating every other
 * service's events was most of what they cost a consumer that skips them).
 */
export function decodeMessage(
  topic: string,
  partition: number,
  message: KafkaMessage,
  acts?: (type: string, headers: Readonly<Record<string, string>>) => boolean,
): DecodedMessage {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    const text = headerString(value);
    if (text !== undefined) headers[name] = text;
  }
  const where = { topic, partition, offset: message.offset };
  const type = headers['event-type'];
  if (acts && type !== undefined && !acts(type, headers)) {
    return { ok: true, message, where, headers, envelope: { id: headers['event-id'] ?? '', type } as EventEnvelope, skipped: true };
  }
  try {
    if (message.value === null) throw new Error('message has no value');
    const envelope = validateEnvelope(JSON.parse(message.value.toString('utf8')));
    return { ok: true, message, where, headers, envelope };
  } catch (error) {
    return { ok: false, message, where, headers, reason: `invalid envelope: ${errorMessage(error)}`, error };
  }
}
