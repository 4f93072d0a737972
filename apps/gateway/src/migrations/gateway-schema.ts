import { MessagingTables1763769600000 } from '@payments/messaging';
import { ApiKeyEntity } from '../merchants/api-key.entity';
import { MerchantEntity } from '../merchants/merchant.entity';
import { MerchantsAndApiKeys1763780000000 } from './1763780000000-merchants-and-api-keys.migration';

/** Every migration of the gateway's schema, in order: the service and the admin CLI run the same list. */
export const GATEWAY_MIGRATIONS = [MessagingTables1763769600000, MerchantsAndApiKeys1763780000000];

/** Every TypeORM entity of the gateway's schema. */
export const GATEWAY_ENTITIES = [MerchantEntity, ApiKeyEntity];
