// The methods a new session offers: those asked for (default: every method the merchant has enabled), each of
// which the merchant must have enabled, narrowed to those a customer can really use in the session's environment
// (a method without its provider configured there is not offered). Merchants' enabled methods use the intent
// surface's names.
import {
  DomainError,
  INTENT_PAYMENT_METHODS,
  INVOICE_PAYMENT_METHODS,
  invoiceMethodOf,
  type IntentPaymentMethod,
  type InvoicePaymentMethod,
} from '../domain';

function isIntentMethod(value: string): value is IntentPaymentMethod {
  return (INTENT_PAYMENT_METHODS as readonly string[]).includes(value);
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

function resolve<M extends string>(asked: readonly string[] | null, enabled: readonly M[], usable: readonly M[], toMethod: (name: string) => M | null): M[] {
  if (asked === null) {
    if (enabled.length === 0) throw new DomainError('payment_methods_unavailable', 'the merchant has no payment method enabled');
    const offered = enabled.filter((method) => usable.includes(method));
    if (offered.length === 0) throw new DomainError('payment_methods_unavailable', `payment methods not available in this environment: ${enabled.join(', ')}`);
    return offered;
  }
  const methods = asked.map((name) => {
    const method = toMethod(name);
    if (method === null) throw new DomainError('invalid_request', `methods has an unknown payment method ${name}`, 'methods');
    return method;
  });
  if (new Set(methods).size !== methods.length) throw new DomainError('invalid_request', 'methods must not repeat a method', 'methods');
  const unavailable = methods.filter((method) => !enabled.includes(method));
  if (unavailable.length > 0) {
    throw new DomainError('payment_methods_unavailable', `payment methods not enabled for this account: ${unavailable.join(', ')}`);
  }
  // Asked for some that are not configured here, beside some that are: the session offers those it can take.
  const offered = methods.filter((method) => usable.includes(method));
  if (offered.length === 0) throw new DomainError('payment_methods_unavailable', `payment methods not available in this environment: ${methods.join(', ')}`);
  return offered;
}

/**
 * `usable`: the intent-surface methods a customer can pay with in the session's environment (PaymentProviders.usableIn);
 * every method when left out.
 */
export function resolveIntentMethods(asked: readonly string[] | null, enabledMethods: readonly string[], usable: readonly IntentPaymentMethod[] = INTENT_PAYMENT_METHODS): IntentPaymentMethod[] {
  const enabled = unique(enabledMethods.filter(isIntentMethod));
  return resolve(asked, enabled, usable, (name) => (isIntentMethod(name) ? name : null));
}

/** Invoices name the service balance `wallet`; `togo` is accepted for it too. */
export function invoiceMethodNamed(name: string): InvoicePaymentMethod | null {
  if ((INVOICE_PAYMENT_METHODS as readonly string[]).includes(name)) return name as InvoicePaymentMethod;
  return isIntentMethod(name) ? invoiceMethodOf(name) : null;
}

export function resolveInvoiceMethods(asked: readonly string[] | null, enabledMethods: readonly string[], usable: readonly IntentPaymentMethod[] = INTENT_PAYMENT_METHODS): InvoicePaymentMethod[] {
  const enabled = unique(enabledMethods.filter(isIntentMethod).map(invoiceMethodOf));
  return resolve(asked, enabled, usable.map(invoiceMethodOf), invoiceMethodNamed);
}
