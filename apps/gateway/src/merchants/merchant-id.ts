import { randomBase62 } from '@payments/ids';

const MERCHANT_ID = /^acct_[A-Za-z0-9]{24}$/;

export function newMerchantId(): string {
  return `acct_${randomBase62(24)}`;
}

export function isMerchantId(value: unknown): value is string {
  return typeof value === 'string' && MERCHANT_ID.test(value);
}
