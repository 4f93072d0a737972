// What payment intents and invoices share: the terms a merchant creates a session with (recorded in its created
// event and carried in its state), how they are checked, and the aggregate mechanics (fold, expiry as read,
// status and method guards). Each aggregate adds its own transitions.
import type { Environment } from '@payments/ids';
import type { FeeSchedule } from '@payments/money';
import { DomainError } from './domain-error';
import {
  addSeconds,
  assertAmount,
  assertCurrency,
  assertExpiresIn,
  assertMethods,
  isoTime,
  type Currency,
  type Customer,
  type Metadata,
} from './session-types';

/** The terms of a session, as its created event records them. */
export interface SessionTerms<M extends string> {
  readonly id: string;
  readonly merchantId: string;
  readonly environment: Environment;
  readonly amountCents: number;
  readonly currency: Currency;
  readonly description: string | null;
  readonly externalRef: string | null;
  readonly successUrl: string | null;
  readonly cancelUrl: string | null;
  readonly methods: readonly M[];
  readonly customer: Customer | null;
  readonly metadata: Metadata;
  readonly createdAt: string;
  readonly expiresAt: string;
  /** The merchant's fee schedule at creation; absent means the default schedule. */
  readonly feeSchedule?: FeeSchedule;
}

/** What a create asks for; checked into SessionTerms by sessionTerms(). */
export interface CreateSessionInput<M extends string> {
  readonly id: string;
  readonly merchantId: string;
  readonly environment: Environment;
  readonly amountCents: number;
  readonly currency?: string;
  readonly description?: string | null;
  readonly externalRef?: string | null;
  readonly successUrl?: string | null;
  readonly cancelUrl?: string | null;
  /** Already resolved against the merchant's enabled methods. */
  readonly methods: readonly M[];
  readonly customer?: Customer | null;
  readonly metadata?: Metadata | null;
  readonly expiresInSeconds?: number;
  /** The merchant's fee schedule (overrides merged), recorded so the fee at payment follows the terms at creation. */
  readonly feeSchedule?: FeeSchedule | null;
  readonly now: Date;
}

/** Checks a create's input and answers the terms its created event records. */
export function sessionTerms<M extends string>(
  input: CreateSessionInput<M>,
  kind: { label: string; environmentOf(id: string): Environment | null; methods: readonly M[]; defaultExpiresInSeconds: number },
): SessionTerms<M> {
  if (kind.environmentOf(input.id) !== input.environment) {
    throw new DomainError('invalid_request', `${kind.label} id ${input.id} is not a ${input.environment} id`);
  }
  assertAmount(input.amountCents);
  const currency = input.currency ?? 'USD';
  assertCurrency(currency);
  assertMethods(input.methods, kind.methods);
  const expiresIn = input.expiresInSeconds ?? kind.defaultExpiresInSeconds;
  assertExpiresIn(expiresIn);
  return {
    id: input.id,
    merchantId: input.merchantId,
    environment: input.environment,
    amountCents: input.amountCents,
    currency,
    description: input.description ?? null,
    externalRef: input.externalRef ?? null,
    successUrl: input.successUrl ?? null,
    cancelUrl: input.cancelUrl ?? null,
    methods: [...input.methods],
    customer: input.customer ?? null,
    metadata: input.metadata ?? {},
    createdAt: isoTime(input.now),
    expiresAt: isoTime(addSeconds(input.now, expiresIn)),
    ...(input.feeSchedule ? { feeSchedule: { ...input.feeSchedule } } : {}),
  };
}

/** What every session's state holds. */
export interface SessionState<Status extends string, M extends string> extends Omit<SessionTerms<M>, 'feeSchedule'> {
  /** Stored status; reads go through effectiveStatus(now). */
  readonly status: Status;
  readonly paidAt: string | null;
  /** 0 until paid. */
  readonly feeCents: number;
  /** The amount until paid, then amount - fee. */
  readonly netCents: number;
  /** The fee rate the payment was charged at (basis points); null until paid. */
  readonly feeRateBps: number | null;
  readonly failureReason: string | null;
  /** The merchant's fee terms agreed at creation; null means the default schedule. */
  readonly feeSchedule: FeeSchedule | null;
  /** Number of events applied: the stream version to append after. */
  readonly version: number;
}

/** The state right after creation: the terms, not paid, version 1. */
export function initialSessionState<Status extends string, M extends string>(terms: SessionTerms<M>, status: Status): SessionState<Status, M> {
  return { ...terms, status, paidAt: null, feeCents: 0, netCents: terms.amountCents, feeRateBps: null, failureReason: null, feeSchedule: terms.feeSchedule ?? null, version: 1 };
}

/** How a kind of session names itself and folds its events. */
export interface SessionRules<S, E, Status extends string> {
  /** "payment intent", "invoice": in refusals. */
  readonly label: string;
  readonly article: 'a' | 'an';
  isFinal(status: Status): boolean;
  evolve(state: S, event: E): S;
  /** The aggregate of a state (the kind's own class). */
  wrap(state: S): object;
  /** The event that expires a session now. */
  expiredEvent(now: Date): E;
}

export abstract class SessionAggregate<S extends SessionState<Status, M>, E, Status extends string, M extends string> {
  protected constructor(
    readonly state: S,
    private readonly rules: SessionRules<S, E, Status>,
  ) {}

  /** The same aggregate type around another state. */

  apply(events: readonly E[]): this {
    return this.rules.wrap(events.reduce((state, event) => this.rules.evolve(state, event), this.state)) as this;
  }

  get id(): string {
    return this.state.id;
  }

  get version(): number {
    return this.state.version;
  }

  /** The status a reader sees: a non-final session whose expires_at has passed is expired. */
  effectiveStatus(now: Date): Status {
    return this.isExpiredAt(now) ? ('expired' as Status) : this.state.status;
  }

  isExpiredAt(now: Date): boolean {
    if (this.state.status === 'expired') return true;
    return !this.rules.isFinal(this.state.status) && now.getTime() >= Date.parse(this.state.expiresAt);
  }

  /** Records the expiry once expires_at has passed; any non-final state may expire. */
  expire(now: Date): E[] {
    if (this.rules.isFinal(this.state.status)) {
      throw new DomainError('invalid_state', `cannot expire ${this.rules.article} ${this.rules.label} that is ${this.state.status}`);
    }
    if (now.getTime() < Date.parse(this.state.expiresAt)) {
      throw new DomainError('invalid_state', `${this.rules.label} does not expire before ${this.state.expiresAt}`);
    }
    return [this.rules.expiredEvent(now)];
  }


  protected requireMethodAvailable(method: M): void {
    if (!this.state.methods.includes(method)) {
      throw new DomainError('payment_methods_unavailable', `payment method ${method} is not available for this ${this.rules.label}`);
    }
  }

  protected requireStatus(now: Date, allowed: readonly Status[], action: string): Status {
    const status = this.effectiveStatus(now);
    if (!allowed.includes(status)) throw new DomainError('invalid_state', `cannot ${action} ${this.rules.article} ${this.rules.label} that is ${status}`);
    return status;
  }
}

/** The aggregate a stream builds: its first event must be the creation, the rest are applied in order. */
export function fromStream<E extends { readonly type: string }, C extends E, A extends { apply(events: readonly E[]): A }>(
  events: readonly E[],
  creation: { type: C['type']; name: string },
  create: (created: C) => A,
): A {
  const [first, ...rest] = events;
  if (first?.type !== creation.type) throw new Error(`${creation.name} stream starts with ${creation.type}`);
  return create(first as C).apply(rest);
}
