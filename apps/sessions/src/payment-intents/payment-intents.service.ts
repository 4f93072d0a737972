import { Injectable } from '@nestjs/common';
import { environmentOfPaymentIntentId, newPaymentId, newPaymentIntentId } from '@payments/ids';
import { combineStatements, executePrepared } from '@payments/messaging';
import { ApiError } from '@payments/platform';
import type { EntityManager } from 'typeorm';
import { merchantFeeSchedule, notFound, parseCommand, parseMerchantSettings, parseSessionParams, type Scope } from '../commands/command-input';
import { SESSIONS_COMMANDS } from '@payments/contracts';
import { resolveIntentMethods } from '../commands/method-resolution';
import { SessionsConfig } from '../config';
import {
  INTENT_PAYMENT_METHODS,
  isFinalPaymentIntentStatus,
  PaymentIntent,
  paymentIntentResourceAt,
  toPaymentIntentResource,
  type PaymentIntentEvent,
  type PaymentIntentResource,
  type PaymentIntentState,
} from '../domain';
import { handledCommand, isUniqueViolation, type StoredEvent } from '../event-store/event-store';
import type { EventMetadata } from '../event-store/event-store';
import type { DueSession } from '../expiry/due-session';
import { IDEMPOTENCY_KEY_CONSTRAINT, IdempotencyKeysRepository, type IdempotencyClaim } from '../idempotency/idempotency-keys.repository';
import { requestFingerprint } from '../idempotency/request-fingerprint';
import { PaymentsRepository } from '../payments/payments.repository';
import { Clock } from '../shared/clock';
import { eventMetadata } from '../shared/event-metadata';
import type { CommandMeta } from '../commands/correlation';
import { SessionsDatabase, type ChangeStatements } from '../shared/sessions-database';
import { paymentIntentEnvelopes } from './payment-intent.public-events';
import { PaymentIntentsRepository } from './payment-intents.repository';

type Decide = (intent: PaymentIntent, now: Date) => PaymentIntentEvent[];

/**
 * Payment intent use cases. Each command reads the stream, lets the aggregate decide, then writes the read model,
 * the events, the payment and the outbox together in one combined statement. Losing a race re-runs the command.
 */
@Injectable()
export class PaymentIntentsService {
  private readonly intents: PaymentIntentsRepository;
  private readonly idempotency: IdempotencyKeysRepository;
  private readonly payments: PaymentsRepository;

  constructor(
    private readonly db: SessionsDatabase,
    private readonly config: SessionsConfig,
    private readonly clock: Clock,
  ) {
    this.intents = new PaymentIntentsRepository(db.schema);
    this.idempotency = new IdempotencyKeysRepository(db.schema);
    this.payments = new PaymentsRepository(db.schema);
  }

  /**
   * Creates an intent, or answers the one already created under the same idempotency key. A key whose claim is
   * past the retention is released and the create runs again (once): the key makes a new intent.
   */
  async create(body: unknown, correlationId: string, retryAfterRelease = true): Promise<PaymentIntentResource> {
    const { command, ...scope } = parseCommand(SESSIONS_COMMANDS.createPaymentIntent, body);
    const key = command.idempotency_key as string;
    const merchant = parseMerchantSettings(command.merchant);
    const params = parseSessionParams(command.params);
    const feeSchedule = merchantFeeSchedule(merchant.feeOverrides);
    const fingerprint = requestFingerprint(SESSIONS_COMMANDS.createPaymentIntent, command.params);

    const now = this.clock.now();
    const id = newPaymentIntentId(scope.environment);
    let events: PaymentIntentEvent[];
    try {
      events = PaymentIntent.create({
        id,
        merchantId: scope.merchantId,
        environment: scope.environment,
        amountCents: params.amountCents,
        currency: params.currency,
        description: params.description,
        externalRef: params.externalRef,
        successUrl: params.successUrl,
        cancelUrl: params.cancelUrl,
        methods: resolveIntentMethods(params.methods, merchant.enabledMethods),
        customer: params.customer,
        metadata: params.metadata,
        expiresInSeconds: params.expiresInSeconds,
        feeSchedule,
        now,
      });
    } catch (error) {
      // A key already used answers with its intent even if this request would now be refused.
      return this.replayIfClaimed(scope, key, fingerprint, error, retryAfterRelease ? () => this.create(body, correlationId, false) : undefined);
    }
    const intent = PaymentIntent.fromEvents(events);
    const resource = this.render(intent.state, now);
    const metadata = eventMetadata(scope, correlationId);
    // Claim, events, read model and outbox in one statement: one round trip, atomic without BEGIN/COMMIT.
    const write = combineStatements([
      this.idempotency.claimStatement(scope, key, 'payment_intent', id, fingerprint),
      this.db.events.appendStatement(id, 0, events, metadata, now),
      this.intents.insertStatement(intent.state, resource, now),
      this.db.outbox.appendStatement(this.db.eventsTopic, paymentIntentEnvelopes(null, events, this.eventContext(now, metadata))),
    ]);
    try {
      await executePrepared(this.db.dataSource, write);
    } catch (error) {
      if (!isUniqueViolation(error, IDEMPOTENCY_KEY_CONSTRAINT)) throw error;
      return this.replayIfClaimed(scope, key, fingerprint, error, retryAfterRelease ? () => this.create(body, correlationId, false) : undefined);
    }
    await this.db.outbox.committed(this.db.dataSource);
    return resource;
  }

  /**
   * The intent an earlier request created under this key, or `error` when the key is not taken. A claim past the
   * retention is released and `retry` answers instead.
   */
  private async replayIfClaimed(
    scope: Scope,
    key: string,
    fingerprint: string,
    error: unknown,
    retry?: () => Promise<PaymentIntentResource>,
  ): Promise<PaymentIntentResource> {
    const manager = this.db.dataSource.manager;
    const claim = await this.idempotency.find(manager, scope, key);
    if (claim === null) throw error;
    const now = this.clock.now();
    const expiredBefore = this.idempotencyExpiredBefore(now);
    if (retry && claim.createdAt < expiredBefore) {
      await this.idempotency.releaseExpired(manager, scope, key, expiredBefore);
      return retry();
    }
    return this.replay(manager, scope, claim, fingerprint, now);
  }

  private idempotencyExpiredBefore(now: Date): Date {
    return new Date(now.getTime() - this.config.IDEMPOTENCY_TTL_SECONDS * 1000);
  }

  async get(body: unknown): Promise<PaymentIntentResource> {
    const { command, ...scope } = parseCommand(SESSIONS_COMMANDS.getPaymentIntent, body);
    const id = command.id as string;
    const resource = environmentOfPaymentIntentId(id) === scope.environment ? await this.intents.findResource(this.db.dataSource.manager, scope, id) : null;
    if (resource === null) throw notFound('payment intent', id);
    return paymentIntentResourceAt(resource, this.clock.now());
  }

  /** Test mode: drives the intent through processing to `succeeded` or `failed`. */
  async simulate(body: unknown, correlationId: string, commandId?: string): Promise<PaymentIntentResource> {
    const { command, ...scope } = parseCommand(SESSIONS_COMMANDS.simulatePaymentIntent, body);
    const id = command.id as string;
    const result = command.result as 'succeeded' | 'failed';
    const method = command.method as (typeof INTENT_PAYMENT_METHODS)[number] | undefined;
    if (scope.environment !== 'test') throw new ApiError('live_mode_not_allowed', 'Only test payment intents can be simulated; use a test key.');
    return this.change(scope, id, { correlationId, commandId }, (intent, now) =>
      result === 'succeeded'
        ? intent.simulate({ result, method, paymentId: newPaymentId(), now })
        : intent.simulate({ result, method, now }),
    );
  }

  /** The merchant cancels an intent that has not been paid. */
  async cancel(body: unknown, correlationId: string, commandId?: string): Promise<PaymentIntentResource> {
    const { command, ...scope } = parseCommand(SESSIONS_COMMANDS.cancelPaymentIntent, body);
    const id = command.id as string;
    return this.change(scope, id, { correlationId, commandId }, (intent, now) => intent.cancel({ reason: 'requested_by_merchant', now }));
  }

  /**
   * Expires one intent the expiry job has locked, in the job's transaction. False when there was nothing to do
   * (it reached a final state first).
   */
  async expireLocked(manager: EntityManager, due: DueSession, now: Date, correlationId: string): Promise<boolean> {
    const intent = await this.load(manager, due, due.id);
    if (isFinalPaymentIntentStatus(intent.state.status)) return false;
    const change = this.changeOf(intent, intent.expire(now), now, eventMetadata(due, correlationId));
    if (change !== null) await this.db.writeChangeIn(manager, change);
    return true;
  }

  lockDue(manager: EntityManager, now: Date, limit: number): Promise<DueSession[]> {
    return this.intents.lockDue(manager, now, limit);
  }

  /** Sets a session whose expiry failed aside for a while (see ExpiryScheduler); answers its failure count. */
  setAsideExpiry(manager: EntityManager, due: DueSession, now: Date): Promise<number> {
    return this.intents.setAsideExpiry(manager, due.id, now);
  }

  /** Read, decide, write in one statement; a command that lost a race runs again from the read. */
  private async change(scope: Scope, id: string, caller: CommandMeta, decide: Decide): Promise<PaymentIntentResource> {
    if (environmentOfPaymentIntentId(id) !== scope.environment) throw notFound('payment intent', id);
    return this.db.retrying(async () => {
      const now = this.clock.now();
      const stream = await this.loadStream(this.db.dataSource.manager, scope, id);
      const intent = PaymentIntent.fromEvents(stream.map((stored) => stored.event));
      // Sent again after its answer was lost: what it did is already written.
      if (handledCommand(stream, caller.commandId)) return this.render(intent.state, now);
      const change = this.changeOf(intent, decide(intent, now), now, eventMetadata(scope, caller.correlationId, caller.commandId));
      if (change === null) return this.render(intent.state, now);
      await this.db.writeChange(change);
      return change.resource;
    });
  }

  private async load(manager: EntityManager, scope: Scope, id: string): Promise<PaymentIntent> {
    const stream = await this.loadStream(manager, scope, id);
    return PaymentIntent.fromEvents(stream.map((stored) => stored.event));
  }

  private async loadStream(manager: EntityManager, scope: Scope, id: string): Promise<StoredEvent<PaymentIntentEvent>[]> {
    const stream = await this.db.events.load<PaymentIntentEvent>(manager, scope, id);
    if (stream.length === 0) throw notFound('payment intent', id);
    return stream;
  }

  /** What the aggregate decided, as the statements that write it (see SessionsDatabase.writeChange); null for nothing. */
  private changeOf(
    intent: PaymentIntent,
    events: PaymentIntentEvent[],
    now: Date,
    metadata: EventMetadata,
  ): (ChangeStatements & { resource: PaymentIntentResource }) | null {
    if (events.length === 0) return null;
    const { state } = intent.apply(events);
    const resource = this.render(state, now);
    const rest = [this.db.events.appendStatement(intent.id, intent.version, events, metadata, now)];
    if (events.some((event) => event.type === 'PaymentIntentSucceeded')) {
      rest.push(
        this.payments.insertStatement({
          id: state.paymentId!,
          merchantId: state.merchantId,
          environment: state.environment,
          sourceType: 'payment_intent',
          sourceId: state.id,
          method: state.paymentMethod!,
          currency: state.currency,
          amountCents: state.amountCents,
          feeCents: state.feeCents,
          netCents: state.netCents,
          paidAt: state.paidAt!,
        }),
      );
    }
    rest.push(this.db.outbox.appendStatement(this.db.eventsTopic, paymentIntentEnvelopes(intent, events, this.eventContext(now, metadata))));
    return { resource, readModelUpdate: this.intents.updateStatement(state, resource, intent.version, now), rest };
  }

  private async replay(
    manager: EntityManager,
    scope: Scope,
    claim: Extract<IdempotencyClaim, { claimed: false }>,
    fingerprint: string,
    now: Date,
  ): Promise<PaymentIntentResource> {
    if (claim.objectType !== 'payment_intent' || claim.fingerprint !== fingerprint) {
      throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request.');
    }
    const resource = await this.intents.findResource(manager, scope, claim.objectId);
    if (resource === null) throw new Error(`idempotency key points at missing payment intent ${claim.objectId}`);
    return paymentIntentResourceAt(resource, now);
  }

  private render(state: PaymentIntentState, now: Date): PaymentIntentResource {
    return toPaymentIntentResource(state, { checkoutBaseUrl: this.config.PUBLIC_BASE_URL, now });
  }

  private eventContext(now: Date, metadata: EventMetadata) {
    return { checkoutBaseUrl: this.config.PUBLIC_BASE_URL, now, metadata };
  }
}
