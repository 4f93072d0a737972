import { DynamicModule, InjectionToken, Module, ModuleMetadata } from '@nestjs/common';
import { parseSecretsKey } from '@payments/webhooks';
import { DataSource } from 'typeorm';
import { GatewayConfig } from '../config';
import { MerchantAccounts } from '../merchants/merchant-accounts.service';
import { MerchantsModule } from '../merchants/merchants.module';
import { AccountsRepository } from './accounts.repository';
import { Accounts } from './accounts.service';
import type { Mailer } from './mailer';
import { TotpSecrets } from './totp';

/** The name authenticator apps show next to the codes. */
const TOTP_ISSUER = 'Payments dashboard';

/**
 * Users, sign-in and the team (apps/gateway/src/accounts). The mailer is the gateway's mail outbox, given by the
 * importer: `AccountsModule.withMailer(MailOutbox, [MailModule])`.
 */
@Module({})
export class AccountsModule {
  static withMailer(mailer: InjectionToken, imports: NonNullable<ModuleMetadata['imports']> = []): DynamicModule {
    return {
      module: AccountsModule,
      imports: [MerchantsModule, ...imports],
      providers: [
        { provide: AccountsRepository, inject: [DataSource], useFactory: (dataSource: DataSource) => new AccountsRepository(dataSource) },
        {
          provide: Accounts,
          inject: [AccountsRepository, MerchantAccounts, GatewayConfig, mailer],
          useFactory: (repository: AccountsRepository, merchants: MerchantAccounts, config: GatewayConfig, outbox: Mailer) =>
            new Accounts(repository, {
              merchants,
              mailer: outbox,
              publicBaseUrl: config.PUBLIC_BASE_URL,
              totp: new TotpSecrets(parseSecretsKey(config.WEBHOOK_SECRETS_KEY), TOTP_ISSUER),
            }),
        },
      ],
      exports: [Accounts, AccountsRepository],
    };
  }
}
