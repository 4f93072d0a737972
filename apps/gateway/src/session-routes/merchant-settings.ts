import type { MerchantSettings } from '@payments/contracts';
import type { AuthContext } from '../auth/auth-context';

/**
 * What the sessions service needs to know of the merchant when it creates a session: its methods and its whole
 * fee schedule (the operator's standard one with the merchant's own rates), which the session keeps.
 */
export function merchantSettings(auth: AuthContext): MerchantSettings {
  return { enabled_methods: [...auth.merchant.enabledMethods], fee_overrides: { ...auth.merchant.feeSchedule } };
}
