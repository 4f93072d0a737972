import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The trace an event arrived in (JSON of its W3C traceparent/tracestate), kept while tracing is on so that every
 * attempt to deliver it, made later by the delivery worker, joins the payment's trace. Null otherwise; nothing
 * reads it but the worker.
 */
export class EventTraceContext1763960000000 implements MigrationInterface {
  name = 'EventTraceContext1763960000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${qualified(migrationSchema(queryRunner), 'events')} ADD COLUMN trace_context text NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${qualified(migrationSchema(queryRunner), 'events')} DROP COLUMN trace_context`);
  }
}
