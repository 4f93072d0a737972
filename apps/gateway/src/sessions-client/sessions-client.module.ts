import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { InvoicesController } from '../invoices/invoices.controller';
import { PaymentIntentsController } from '../payment-intents/payment-intents.controller';
import { SessionsClient } from './sessions.client';

/** The payment-intent and invoice routes: authenticated, validated, forwarded to the sessions service. */
@Module({
  imports: [IdempotencyModule],
  controllers: [PaymentIntentsController, InvoicesController],
  providers: [SessionsClient],
  exports: [SessionsClient],
})
export class SessionsClientModule {}
