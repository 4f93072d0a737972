import type { PublicEventType } from '@payments/events';
import { environmentOfInvoiceId, environmentOfPaymentIntentId, type Environment } from '@payments/ids';
import type { PaymentRecord } from '../payments/payment-record';

/** What the pipeline needs of an event-sourced aggregate (PaymentIntent, Invoice). */
export interface SessionAggregate<S, E, Self> {
  readonly state: S;
  readonly id: string;
  /** Events applied so far: the stream version to append after. */
  readonly version: number;
  apply(events: readonly E[]): Self;
  /** The expiry's events (the aggregate refuses when it is not due). */
  expire(now: Date): E[];
}

/**
 * One kind of session, as the command pipeline sees it: how to rebuild it, render it, and which public event and
 * which payment each of its events makes. Payment intents and invoices each have one (`*.kind.ts`).
 */
export interface SessionKind<A extends SessionAggregate<S, E, A>, S, E extends { readonly type: string }, R> {
  /** Names the kind in messages: "No payment intent pi_…". */
  readonly label: 'payment intent' | 'invoice';
  /** aggregate_type of its public events and the object type of its idempotency claims. */
  readonly objectType: 'payment_intent' | 'invoice';
  /** The environment an id belongs to; null for an id of another kind. */
  environmentOf(id: string): Environment | null;
  fromEvents(events: readonly E[]): A;
  isFinal(state: S): boolean;
  /** The resource GET answers, as of `now`. */
  render(state: S, now: Date): R;
  /** A stored resource as of `now` (a non-final session may have expired since it was written). */
  renderStoredAt(resource: R, now: Date): R;
  /** The public event a stored event is, given the state right after it; null for internal events. */
  publicType(event: E, after: S): PublicEventType | null;
  /** Whether the event completes the payment (its public event carries the payment, which the ledger books). */
  completesPayment(event: E): boolean;
  /** The payment of a paid session. */
  paymentOf(state: S): PaymentRecord;
}

const OBJECT_TYPES = {
  payment_intent: { label: 'payment intent', environmentOf: environmentOfPaymentIntentId },
  invoice: { label: 'invoice', environmentOf: environmentOfInvoiceId },
} as const;

/** A kind from its aggregate, its resource rendering and what its events mean; the rest is the same for all. */
export function sessionKind<A extends SessionAggregate<S, E, A>, S extends { readonly status: string }, E extends { readonly type: string }, R>(
  objectType: 'payment_intent' | 'invoice',
  aggregate: { fromEvents(events: readonly E[]): A; isFinalStatus(status: S['status']): boolean },
  rendering: { checkoutBaseUrl: string; toResource(state: S, options: { checkoutBaseUrl: string; now: Date }): R; resourceAt(resource: R, now: Date): R },
  events: Pick<SessionKind<A, S, E, R>, 'publicType' | 'completesPayment' | 'paymentOf'>,
): SessionKind<A, S, E, R> {
  const { checkoutBaseUrl } = rendering;
  return {
    ...OBJECT_TYPES[objectType],
    objectType,
    fromEvents: (stream) => aggregate.fromEvents(stream),
    isFinal: (state) => aggregate.isFinalStatus(state.status),
    render: (state, now) => rendering.toResource(state, { checkoutBaseUrl, now }),
    renderStoredAt: (resource, now) => rendering.resourceAt(resource, now),
    ...events,
  };
}
