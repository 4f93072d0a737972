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
