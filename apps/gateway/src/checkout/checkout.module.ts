import { Module } from '@nestjs/common';
import { readCryptoSettings } from '@payments/chain';
import { MerchantsModule } from '../merchants/merchants.module';
import { RefundsModule } from '../refunds/refunds.module';
import { SessionsClientModule } from '../sessions-client/sessions-client.module';
import { WalletsModule } from '../wallets/wallets.module';
import { CheckoutController } from './checkout.controller';
import { CheckoutCrypto } from './checkout-crypto';
import { ProviderNotificationsController } from './provider-notifications.controller';

/** The hosted checkout page customers are sent to (`checkout_url`), and the payment providers' notifications. */
@Module({
  imports: [SessionsClientModule, MerchantsModule, RefundsModule, WalletsModule],
  controllers: [CheckoutController, ProviderNotificationsController],
  // The same crypto settings as sessions (CRYPTO_CHAINS, CRYPTO_XPUB_*): a bad one stops the gateway at start.
  providers: [{ provide: CheckoutCrypto, useFactory: () => new CheckoutCrypto(readCryptoSettings(process.env)) }],
})
export class CheckoutModule {}
