import { ApiError } from '@payments/platform';
import { DomainError } from '../domain';
import { resolveIntentMethods, resolveInvoiceMethods } from './method-resolution';

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError || error instanceof ApiError) return error.code;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('resolveIntentMethods', () => {
  it('defaults to every enabled method, in the merchant order', () => {
    expect(resolveIntentMethods(null, ['lahza', 'togo'])).toEqual(['lahza', 'togo']);
  });

  it('keeps the methods asked for when all are enabled', () => {
    expect(resolveIntentMethods(['crypto'], ['togo', 'lahza', 'crypto'])).toEqual(['crypto']);
  });

  it('refuses a method the merchant has not enabled, or no method at all, with payment_methods_unavailable', () => {
    expect(codeOf(() => resolveIntentMethods(['crypto'], ['togo']))).toBe('payment_methods_unavailable');
    expect(codeOf(() => resolveIntentMethods(null, []))).toBe('payment_methods_unavailable');
  });

  it('refuses unknown or repeated names as invalid_request', () => {
    expect(codeOf(() => resolveIntentMethods(['wallet'], ['togo']))).toBe('invalid_request');
    expect(codeOf(() => resolveIntentMethods(['togo', 'togo'], ['togo']))).toBe('invalid_request');
  });
});

describe('resolveInvoiceMethods', () => {
  it('names the service balance wallet', () => {
    expect(resolveInvoiceMethods(null, ['togo', 'lahza', 'crypto'])).toEqual(['wallet', 'lahza', 'crypto']);
  });

  it('accepts wallet or togo when togo is enabled', () => {
    expect(resolveInvoiceMethods(['wallet'], ['togo'])).toEqual(['wallet']);
    expect(resolveInvoiceMethods(['togo', 'lahza'], ['togo', 'lahza'])).toEqual(['wallet', 'lahza']);
    expect(codeOf(() => resolveInvoiceMethods(['wallet', 'togo'], ['togo']))).toBe('invalid_request');
    expect(codeOf(() => resolveInvoiceMethods(['wallet'], ['lahza']))).toBe('payment_methods_unavailable');
  });
});

describe('methods usable in the environment', () => {
  const live = ['togo'] as const; // a live install without Lahza's live key (crypto has no live chain yet)

  it('offers only what is usable, by default and of what was asked', () => {
    expect(resolveIntentMethods(null, ['togo', 'lahza', 'crypto'], live)).toEqual(['togo']);
    expect(resolveIntentMethods(['togo', 'crypto'], ['togo', 'lahza', 'crypto'], live)).toEqual(['togo']);
    expect(resolveInvoiceMethods(null, ['togo', 'lahza', 'crypto'], ['togo', 'lahza'])).toEqual(['wallet', 'lahza']);
  });

  it('refuses a create that asks only for methods not usable here, naming them', () => {
    expect(codeOf(() => resolveIntentMethods(['lahza', 'crypto'], ['togo', 'lahza', 'crypto'], live))).toBe('payment_methods_unavailable');
    expect(() => resolveIntentMethods(['lahza', 'crypto'], ['togo', 'lahza', 'crypto'], live)).toThrow(/lahza, crypto/);
    expect(codeOf(() => resolveInvoiceMethods(['crypto'], ['togo', 'crypto'], live))).toBe('payment_methods_unavailable');
    expect(codeOf(() => resolveIntentMethods(null, ['crypto'], live))).toBe('payment_methods_unavailable');
  });
});
