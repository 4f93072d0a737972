import { MESSAGING_MIGRATIONS } from '@payments/messaging';
import { SessionsTables1763790000000 } from './1763790000000-sessions-tables.migration';
import { IdempotencyKeyAge1764000000000 } from './1764000000000-idempotency-key-age.migration';
import { ExpirySetAside1764000000001 } from './1764000000001-expiry-set-aside.migration';
import { ProviderAttempts1764100000000 } from './1764100000000-provider-attempts.migration';
import { ProviderRefunds1764200000000 } from './1764200000000-provider-refunds.migration';
import { ProviderChecks1764300000000 } from './1764300000000-provider-checks.migration';
import { ListIndexes1764330000000 } from './1764330000000-list-indexes.migration';
import { WalletAttempts1764400000000 } from './1764400000000-wallet-attempts.migration';
import { ChainWatch1764510000000 } from './1764510000000-chain-watch.migration';
import { CryptoAddresses1764600000000 } from './1764600000000-crypto-addresses.migration';

/** Every migration of the sessions schema, in order (the service runs them at boot; tests run the same list). */
export const SESSIONS_MIGRATIONS = [...MESSAGING_MIGRATIONS, SessionsTables1763790000000, IdempotencyKeyAge1764000000000, ExpirySetAside1764000000001, ProviderAttempts1764100000000, ProviderRefunds1764200000000, ProviderChecks1764300000000, ListIndexes1764330000000, WalletAttempts1764400000000, ChainWatch1764510000000, CryptoAddresses1764600000000];
