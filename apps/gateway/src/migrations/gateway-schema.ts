import { MESSAGING_MIGRATIONS } from '@payments/messaging';
import { RecoveryCodeEntity } from '../accounts/recovery-code.entity';
import { UserTokenEntity } from '../accounts/user-token.entity';
import { UserEntity } from '../accounts/user.entity';
import { ApiKeyEntity } from '../merchants/api-key.entity';
import { MerchantEntity } from '../merchants/merchant.entity';
import { WebhookEndpointEntity } from '../webhook-endpoints/webhook-endpoint.entity';
import { MerchantsAndApiKeys1763780000000 } from './1763780000000-merchants-and-api-keys.migration';
import { WebhookEndpoints1763790000000 } from './1763790000000-webhook-endpoints.migration';
import { WebhookEndpointDisabling1763800000000 } from './1763800000000-webhook-endpoint-disabling.migration';
import { WebhookEndpointActions1763810000000 } from './1763810000000-webhook-endpoint-actions.migration';
import { MailOutbox1764300000000 } from './1764300000000-mail-outbox.migration';
import { AccountsAndVerification1764310000000 } from './1764310000000-accounts-and-verification.migration';
import { ApiKeyExpiry1764320000000 } from './1764320000000-api-key-expiry.migration';
import { CustomerWallets1764400000000 } from './1764400000000-customer-wallets.migration';

/** Every migration of the gateway's schema, in order: the service and the admin CLI run the same list. */
export const GATEWAY_MIGRATIONS = [
  ...MESSAGING_MIGRATIONS,
  MerchantsAndApiKeys1763780000000,
  WebhookEndpoints1763790000000,
  WebhookEndpointDisabling1763800000000,
  WebhookEndpointActions1763810000000,
  MailOutbox1764300000000,
  AccountsAndVerification1764310000000,
  ApiKeyExpiry1764320000000,
  CustomerWallets1764400000000,
];

/** Every TypeORM entity of the gateway's schema. */
export const GATEWAY_ENTITIES = [MerchantEntity, ApiKeyEntity, WebhookEndpointEntity, UserEntity, UserTokenEntity, RecoveryCodeEntity];
