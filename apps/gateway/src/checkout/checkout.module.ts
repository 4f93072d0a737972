import { Module } from '@nestjs/common';
import { MerchantsModule } from '../merchants/merchants.module';
import { RefundsModule } from '../refunds/refunds.module';
import { SessionsClientModule } from '../sessions-client/sessions-client.module';
import { WalletsModule } from '../wallets/wallets.module';
import { CheckoutController } from './checkout.controller';
import { ProviderNotificationsController } from './provider-notifications.controller';

/** The hosted checkout page customers are sent to (`checkout_url`), and the payment providers' notifications. */
@Module({ imports: [SessionsClientModule, MerchantsModule, RefundsModule, WalletsModule], controllers: [CheckoutController, ProviderNotificationsController] })
export class CheckoutModule {}
