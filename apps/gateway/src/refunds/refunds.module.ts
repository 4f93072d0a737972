import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { RefundsClient } from './refunds.client';
import { RefundsController } from './refunds.controller';

/** The payments and refunds routes: authenticated, validated, answered by the refunds service. */
@Module({ imports: [IdempotencyModule], controllers: [RefundsController], providers: [RefundsClient], exports: [RefundsClient] })
export class RefundsModule {}
