import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { SessionsConfig } from './config';
import { ExpiryScheduler } from './expiry/expiry.scheduler';
import { IdempotencyKeysPruner } from './idempotency/idempotency-keys.pruner';
import { InvoicesController } from './invoices/invoices.controller';
import { InvoicesService } from './invoices/invoices.service';
import { PaymentIntentsController } from './payment-intents/payment-intents.controller';
import { PaymentIntentsService } from './payment-intents/payment-intents.service';
import { Clock, SystemClock } from './shared/clock';
import { SessionsDatabase } from './shared/sessions-database';

/** Payment intents and invoices: commands over Kafka, their event store and read models, and the expiry job. */
@Module({
  controllers: [PaymentIntentsController, InvoicesController],
  providers: [
    { provide: Clock, useClass: SystemClock },
    {
      provide: SessionsDatabase,
      inject: [getDataSourceToken(), SessionsConfig],
      useFactory: (dataSource: DataSource, config: SessionsConfig) => new SessionsDatabase(dataSource, config),
    },
    PaymentIntentsService,
    InvoicesService,
    ExpiryScheduler,
    IdempotencyKeysPruner,
  ],
})
export class SessionsModule {}
