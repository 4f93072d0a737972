import { newEnvelope, registerEventType, type EventEnvelope } from '@payments/events';
import { createTestDatabase, type TestDatabase } from '@payments/testing';
import type { Kafka, Producer } from 'kafkajs';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createProducer, type MessagingLogger } from '../../src';

export const THING_HAPPENED = 'test.thing_happened';

registerEventType(THING_HAPPENED, {
  version: 1,
  dataSchema: {
    type: 'object',
    required: ['n'],
    properties: { n: { type: 'integer' }, poison: { type: 'boolean' } },
  },
});

export function thingHappened(aggregateId: string, sequence: number, data: Record<string, unknown> = {}): EventEnvelope {
  return newEnvelope({
    type: THING_HAPPENED,
    aggregate_id: aggregateId,
    aggregate_type: 'thing',
    sequence,
    merchant_id: 'mer_test',
    environment: 'test',
    correlation_id: `req_${aggregateId}_${sequence}`,
    data: { n: sequence, ...data },
  });
}

function schemaOf(queryRunner: QueryRunner): string {
  return (queryRunner.connection.options as { schema: string }).schema;
}

/** Writer side state: the things whose changes the events describe. */
export class CreateThings1763769700000 implements MigrationInterface {
  name = 'CreateThings1763769700000';
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "${schemaOf(queryRunner)}".things (id text PRIMARY KEY, version int NOT NULL)`);
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "${schemaOf(queryRunner)}".things`);
  }
}

/** Consumer side effect, deliberately without a unique constraint: only the inbox keeps it single. */
export class CreateEffects1763769700001 implements MigrationInterface {
  name = 'CreateEffects1763769700001';
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "${schemaOf(queryRunner)}".effects (
         id bigserial PRIMARY KEY, event_id text NOT NULL, aggregate_id text NOT NULL, sequence int NOT NULL)`,
    );
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "${schemaOf(queryRunner)}".effects`);
  }
}

export interface LogEntry {
  level: keyof MessagingLogger;
  message: string;
  context: Record<string, unknown>;
}

/** A logger that keeps entries for assertions (and prints nothing). */
export function recordingLogger(): MessagingLogger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: keyof MessagingLogger) => (context: Record<string, unknown>, message: string) => {
    entries.push({ level, message, context });
  };
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** Runs the stop functions in reverse order of registration; each one runs even if another failed. */
export class Cleanup {
  private readonly steps: Array<() => Promise<unknown>> = [];

  add(step: () => Promise<unknown>): void {
    this.steps.push(step);
  }

  async run(): Promise<void> {
    const errors: unknown[] = [];
    for (const step of this.steps.splice(0).reverse()) {
      await step().catch((error: unknown) => errors.push(error));
    }
    if (errors.length > 0) throw new AggregateError(errors, 'cleanup failed');
  }
}

/** A fresh database for one test file, dropped by `cleanup`. */
export async function createDatabase(prefix: string, cleanup: Cleanup): Promise<TestDatabase> {
  const database = await createTestDatabase(prefix);
  cleanup.add(() => database.drop());
  return database;
}

/** A connected producer, disconnected by `cleanup`. */
export async function connectProducer(kafka: Kafka, cleanup: Cleanup): Promise<Producer> {
  const producer = createProducer(kafka);
  await producer.connect();
  cleanup.add(() => producer.disconnect());
  return producer;
}
