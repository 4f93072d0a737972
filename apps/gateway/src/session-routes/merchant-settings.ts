import type { MerchantSettings } from '@payments/contracts';
import type { AuthContext } from '../auth/auth-context';

/** What the sessions service needs to know of the merchant when it creates a session. */
export function merchantSettings(auth: AuthContext): MerchantSettings {
  const settings: MerchantSettings = { enabled_methods: [...auth.merchant.enabledMethods] };
  if (auth.merchant.feeOverrides) settings.fee_overrides = { ...auth.merchant.feeOverrides } as Record<string, number>;
  return settings;
}
