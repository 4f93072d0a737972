import {
  REFUNDS_COMMANDS,
  type CreateRefundCommand,
  type GetPaymentCommand,
  type GetRefundCommand,
  type ListPaymentsCommand,
  type ListRefundsCommand,
  type ListResource,
  type PaymentResource,
  type ProviderRefundSettledCommand,
  type RefundResource,
  resolveListFilter,
  type ListFilter,
  type ResolvedListFilter,
} from '@payments/contracts';
import { newRefundId } from '@payments/ids';
import { combineStatements } from '@payments/database';
import type { OutboxWriter } from '@payments/messaging';
import { formatMoney } from '@payments/money';
import { ApiError } from '@payments/platform';
import type { DataSource, EntityManager } from 'typeorm';
import { centsOf, parseCommand } from '../commands/command-input';
import { isSameRefundRequest, RefundRefused, settlementOf } from '../domain';
import type { SessionsPayments } from '../sessions-lookup/sessions-payments';
import { FIRST_CHECK_AFTER_MS, type ProviderRefundSettlement } from './provider-refunds';
import { refundEvent } from './refund-events';
import { paymentResource, refundResource } from './refund-views';
import { isPaymentIdText, type RefundsRepository, type Scope, type StoredRefund } from './refunds.repository';

/** The filters' cross-field rules (the schema checked each field); a refusal names the field. */
function listFilter(command: ListFilter): ResolvedListFilter {
  const resolved = resolveListFilter(command);
  if (!resolved.ok) throw new ApiError('invalid_request', resolved.message, resolved.param);
  return resolved.filter;
}

/** Thrown inside a create's transaction when another request with the same key made its refund first. */
class KeyTaken extends Error {}

const PAYMENT_NOT_HERE = Symbol('payment not here');
const FITS_NOW = Symbol('fits now');
/** Reservations one create tries before answering with what remains (each lost only to a refund that committed). */
const RESERVE_TRIES = 5;

function noSuchPayment(): ApiError {
  return new ApiError('not_found', 'No such payment.', 'id');
}

/**
 * Refunds and the payments they return money from. A refund is created in one transaction: the payment's
 * remainder is set aside by one conditional statement (see RefundsRepository.reserve), the refund row claims the
 * request's key, and its events go to the outbox with it, so a refund is never half-made and never made twice.
 * A refund of a provider payment is created pending and then asked of the provider (ProviderRefundSettlement).
 */
export class RefundHandlers {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: RefundsRepository,
    private readonly sessions: SessionsPayments,
    private readonly outbox: OutboxWriter,
    private readonly topic: string,
    private readonly providerRefunds: ProviderRefundSettlement,
  ) {}

  /** `commandId` (the request's Idempotency-Key) is what the refund's events name as their cause. */
  async create(body: unknown, correlationId: string, commandId?: string): Promise<RefundResource> {
    const { scope, command } = parseCommand<CreateRefundCommand>(REFUNDS_COMMANDS.createRefund, body);
    const cents = command.params.amount === undefined ? null : centsOf(command.params.amount, 'amount');
    if (!isPaymentIdText(command.payment_id)) throw noSuchPayment();
    let made = await this.tryCreate(scope, command, cents, correlationId, commandId);
    // The payment's event has not reached this service yet: sessions, its owner, is asked once.
    if (made === PAYMENT_NOT_HERE) {
      if (!(await this.fetchPayment(scope, command.payment_id, correlationId))) throw noSuchPayment();
      made = await this.tryCreate(scope, command, cents, correlationId, commandId);
      if (made === PAYMENT_NOT_HERE) throw noSuchPayment();
    }
    // The key's refund, made now or before: a key reused for another refund (after the gateway's record of it
    // expired, or while Redis was down) is refused here too.
    if (!isSameRefundRequest(made, { paymentId: command.payment_id, amountCents: cents, reason: command.params.reason })) {
      throw new ApiError(
        'idempotency_key_reused',
        `This Idempotency-Key made refund ${made.id} of payment ${made.paymentId} with other parameters; use a new key for a new refund.`,
        'Idempotency-Key',
      );
    }
    // Pending at its provider (just made, or a retry of one whose provider answer was lost): asked now, outside
    // the refund's transaction; without an answer it stays pending for the background check.
    if (made.status === 'pending') made = await this.providerRefunds.request(made, correlationId, commandId);
    return refundResource(made);
  }

  async getRefund(body: unknown): Promise<RefundResource> {
    const { scope, command } = parseCommand<GetRefundCommand>(REFUNDS_COMMANDS.getRefund, body);
    const refund = await this.repository.findRefund(this.dataSource.manager, scope, command.id);
    if (!refund) throw new ApiError('not_found', 'No such refund.', 'id');
    return refundResource(refund);
  }

  /** The provider settled a refund (see ProviderRefundSettlement.settled); answers it as it stands after. */
  async providerRefundSettled(body: unknown, correlationId: string, commandId?: string): Promise<RefundResource> {
    const { scope, command } = parseCommand<ProviderRefundSettledCommand>(REFUNDS_COMMANDS.providerRefundSettled, body);
    const refund = await this.repository.findRefund(this.dataSource.manager, scope, command.refund_id);
    if (!refund) throw new ApiError('not_found', 'No such refund.', 'refund_id');
    return refundResource(await this.providerRefunds.settled(refund, correlationId, commandId));
  }

  async getPayment(body: unknown, correlationId: string): Promise<PaymentResource> {
    const { scope, command } = parseCommand<GetPaymentCommand>(REFUNDS_COMMANDS.getPayment, body);
    const manager = this.dataSource.manager;
    let payment = await this.repository.findPayment(manager, scope, command.id);
    if (!payment && isPaymentIdText(command.id) && (await this.fetchPayment(scope, command.id, correlationId))) {
      payment = await this.repository.findPayment(manager, scope, command.id);
    }
    if (!payment) throw noSuchPayment();
    return paymentResource(payment, await this.repository.refundsOf(manager, [payment.id]));
  }

  async listPayments(body: unknown): Promise<ListResource<PaymentResource>> {
    const { scope, command } = parseCommand<ListPaymentsCommand>(REFUNDS_COMMANDS.listPayments, body);
    const manager = this.dataSource.manager;
    const after = command.starting_after === undefined ? null : await this.repository.findPayment(manager, scope, command.starting_after);
    if (command.starting_after !== undefined && !after) throw new ApiError('invalid_request', 'starting_after is not a payment of this account', 'starting_after');
    const page = await this.repository.listPayments(manager, scope, command.limit, after, listFilter(command), command.external_ref ?? null);
    const refunds = await this.repository.refundsOf(manager, page.items.map((p) => p.id));
    return {
      object: 'list',
      data: page.items.map((p) => paymentResource(p, refunds.filter((r) => r.paymentId === p.id))),
      has_more: page.hasMore,
    };
  }

  async listRefunds(body: unknown): Promise<ListResource<RefundResource>> {
    const { scope, command } = parseCommand<ListRefundsCommand>(REFUNDS_COMMANDS.listRefunds, body);
    const manager = this.dataSource.manager;
    const after = command.starting_after === undefined ? null : await this.repository.findRefund(manager, scope, command.starting_after);
    if (command.starting_after !== undefined && !after) throw new ApiError('invalid_request', 'starting_after is not a refund of this account', 'starting_after');
    // A payment id that names nothing of this account lists nothing.
    const paymentId = command.payment_id === undefined ? null : command.payment_id;
    if (paymentId !== null && !isPaymentIdText(paymentId)) return { object: 'list', data: [], has_more: false };
    const page = await this.repository.listRefunds(manager, scope, command.limit, after, paymentId, listFilter(command));
    return { object: 'list', data: page.items.map(refundResource), has_more: page.hasMore };
  }

  /** One attempt in one transaction; PAYMENT_NOT_HERE when this service does not know the payment yet. */
  private async tryCreate(
    scope: Scope,
    command: CreateRefundCommand,
    cents: number | null,
    correlationId: string,
    commandId: string | undefined,
  ): Promise<StoredRefund | typeof PAYMENT_NOT_HERE> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        const key = command.idempotency_key;
        // No look for the key's refund first: a retry whose refund exists loses the insert below (or, when nothing
        // remains, finds it in refusal), and its reservation is rolled back.
        let reserved = await this.repository.reserve(manager, scope, command.payment_id, cents);
        // Nothing set aside, though the refund fits what remains now: the payment's event was recorded after the
        // statement looked, or (amount defaulted) other refunds changed what remains meanwhile. Ask again.
        for (let tries = 1; !reserved; tries++) {
          const refusal = await this.refusal(manager, scope, command, cents, tries >= RESERVE_TRIES);
          if (refusal !== FITS_NOW) return refusal;
          reserved = await this.repository.reserve(manager, scope, command.payment_id, cents);
        }
        const { payment } = reserved;
        const settlement = settlementOf(payment);
        if (settlement === 'unavailable') {
          throw new RefundRefused('provider_unavailable', `Refunds of live ${payment.method} payments are not available yet.`);
        }
        const now = new Date();
        const atOnce = settlement === 'at_once';
        const refund: StoredRefund = {
          id: newRefundId(),
          paymentId: payment.id,
          merchantId: scope.merchantId,
          environment: scope.environment,
          amountCents: reserved.cents,
          currency: payment.currency,
          reason: command.params.reason ?? null,
          status: atOnce ? 'completed' : 'pending',
          failureReason: null,
          createdAt: now,
          completedAt: atOnce ? now : null,
        };
        const nextCheckAt = atOnce ? null : new Date(now.getTime() + FIRST_CHECK_AFTER_MS);
        // Completed at once: created and completed, in order, in the refund's transaction; else created alone.
        const events = [refundEvent('refund.created', refund, payment, correlationId, now, commandId ?? null)];
        if (atOnce) events.push(refundEvent('refund.completed', refund, payment, correlationId, now, commandId ?? null));
        // The refund, its completion and its events in one statement (one round trip): the lone row it answers
        // says whether the refund was inserted; when its key had made one already, the rollback undoes it all.
        const write = combineStatements([
          this.repository.insertRefundStatement({ ...refund, idempotencyKey: key, nextCheckAt }),
          ...(atOnce ? [this.repository.completeStatement(payment.id, refund.amountCents)] : []),
          this.outbox.appendStatement(this.topic, events),
          { text: 'SELECT (SELECT count(*) FROM s1)::int AS inserted', params: [] },
        ]);
        const [row] = (await manager.query(write.text, write.params as unknown[])) as Array<{ inserted: number }>;
        if (row?.inserted !== 1) throw new KeyTaken();
        await this.outbox.committedIn(manager);
        return refund;
      });
    } catch (error) {
      if (!(error instanceof KeyTaken)) throw error;
      const made = await this.repository.findRefundByKey(this.dataSource.manager, scope, command.idempotency_key);
      if (!made) throw error;
      return made;
    }
  }

  /**
   * Why nothing was set aside: the key's refund made meanwhile, an unknown payment, or not enough left; or
   * FITS_NOW when the payment arrived (its event, just recorded) after the reservation looked for it.
   */
  private async refusal(
    manager: EntityManager,
    scope: Scope,
    command: CreateRefundCommand,
    cents: number | null,
    lastTry: boolean,
  ): Promise<StoredRefund | typeof PAYMENT_NOT_HERE | typeof FITS_NOW> {
    const made = await this.repository.findRefundByKey(manager, scope, command.idempotency_key);
    if (made) return made;
    const payment = await this.repository.findPayment(manager, scope, command.payment_id);
    if (!payment) return PAYMENT_NOT_HERE;
    const remaining = payment.amountCents - payment.reservedCents;
    if (!lastTry && remaining > 0 && (cents === null || cents <= remaining)) return FITS_NOW;
    throw new RefundRefused(
      'exceeds_payment',
      remaining === 0
        ? `Payment ${payment.id} has been refunded in full: nothing remains to refund.`
        : `The refund exceeds what remains of payment ${payment.id}: ${formatMoney(remaining)} USD.`,
      remaining,
    );
  }

  /** Asks sessions for the payment and records it here; false when sessions has no such payment for the merchant. */
  private async fetchPayment(scope: Scope, id: string, correlationId: string): Promise<boolean> {
    const found = await this.sessions.find({ merchant_id: scope.merchantId, environment: scope.environment, id }, correlationId);
    if (!found) return false;
    await this.repository.addPayment(this.dataSource.manager, {
      id: found.id,
      merchantId: scope.merchantId,
      environment: scope.environment,
      source: found.source,
      method: found.method,
      currency: found.currency,
      amountCents: centsOf(found.amount, 'amount'),
      feeCents: centsOf(found.fee, 'fee', 0),
      netCents: centsOf(found.net, 'net', 0),
      paidAt: new Date(found.paid_at),
      // Sessions' answer carries no reference; the payment's event fills it in when it arrives.
      externalRef: null,
    });
    return true;
  }
}
