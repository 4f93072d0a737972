import { Module } from '@nestjs/common';
import { MerchantsModule } from '../merchants/merchants.module';
import { SessionsClientModule } from '../sessions-client/sessions-client.module';
import { CheckoutController } from './checkout.controller';

/** The hosted checkout page customers are sent to (`checkout_url`). */
@Module({ imports: [SessionsClientModule, MerchantsModule], controllers: [CheckoutController] })
export class CheckoutModule {}
