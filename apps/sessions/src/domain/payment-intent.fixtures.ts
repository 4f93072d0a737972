// Test helpers for payment intent specs (not exported from the domain index).
import { newPaymentId, newPaymentIntentId, type Environment } from '@payments/ids';
import { DomainError, type DomainErrorCode } from './domain-error';
import { PaymentIntent, type CreatePaymentIntentInput, type PaymentIntentStatus } from './payment-intent.aggregate';

export const T0 = new Date('2025-03-01T10:00:00.000Z');

/** T0 plus some seconds. */
export function at(seconds: number): Date {
  return new Date(T0.getTime() + seconds * 1000);
}

export function createInput(overrides: Partial<CreatePaymentIntentInput> = {}): CreatePaymentIntentInput {
  const environment: Environment = overrides.environment ?? 'live';
  return {
    id: newPaymentIntentId(environment),
    merchantId: 'mer_1',
    environment,
    amountCents: 7400,
    methods: ['togo', 'lahza', 'crypto'],
    now: T0,
    ...overrides,
  };
}

export function newIntent(overrides: Partial<CreatePaymentIntentInput> = {}): PaymentIntent {
  return PaymentIntent.fromEvents(PaymentIntent.create(createInput(overrides)));
}

/** An intent brought into the status through the public commands (before expires_at unless it is expired). */
export function intentIn(status: PaymentIntentStatus, overrides: Partial<CreatePaymentIntentInput> = {}): PaymentIntent {
  const intent = newIntent(overrides);
  const processing = () => intent.apply(intent.submitMethod('togo', at(10)));
  switch (status) {
    case 'requires_payment_method':
      return intent;
    case 'processing':
      return processing();
    case 'succeeded': {
      const p = processing();
      return p.apply(p.succeed({ paymentId: newPaymentId(), now: at(20) }));
    }
    case 'failed': {
      const p = processing();
      return p.apply(p.fail({ reason: 'card_declined', now: at(20) }));
    }
    case 'cancelled':
      return intent.apply(intent.cancel({ now: at(10) }));
    case 'expired':
      return intent.apply(intent.expire(at(1800)));
  }
}

/** Runs the command and returns the DomainError code it threw (fails the test when it did not throw one). */
export function codeOf(command: () => unknown): DomainErrorCode {
  try {
    command();
  } catch (error: unknown) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
  throw new Error('expected a DomainError');
}

/** How a new 74.00 intent for order-42 reads, whatever its id and times (every method enabled). */
export const NEW_ORDER_42_INTENT = {
  object: 'payment_intent',
  status: 'requires_payment_method',
  amount: '74.00',
  currency: 'USD',
  fee: '0.00',
  net_amount: '74.00',
  payment_method: null,
  external_ref: 'order-42',
  paid: false,
  available_methods: ['togo', 'lahza', 'crypto'],
} as const;
