import { Injectable } from '@nestjs/common';
import { environmentOfInvoiceId, newInvoiceId, newPaymentId } from '@payments/ids';
import { ApiError } from '@payments/platform';
import type { EntityManager } from 'typeorm';
import { merchantFeeSchedule, notFound, parseCommand, parseMerchantSettings, parseSessionParams, type Scope } from '../commands/command-input';
import { INVOICE_METHODS, SESSIONS_COMMANDS, type SimulateInvoiceReply } from '@payments/contracts';
import { invoiceMethodNamed, resolveInvoiceMethods } from '../commands/method-resolution';
import { SessionsConfig } from '../config';
import {
  Invoice,
  invoiceResourceAt,
  isFinalInvoiceStatus,
  toInvoiceResource,
  type InvoiceEvent,
  type InvoiceResource,
  type InvoiceState,
} from '../domain';
import { handledCommand, type EventMetadata, type StoredEvent } from '../event-store/event-store';
import type { DueSession } from '../expiry/due-session';
import { IdempotencyKeysRepository, type IdempotencyClaim } from '../idempotency/idempotency-keys.repository';
import { requestFingerprint } from '../idempotency/request-fingerprint';
import { PaymentsRepository } from '../payments/payments.repository';
import { Clock } from '../shared/clock';
import { eventMetadata } from '../shared/event-metadata';
import type { CommandMeta } from '../commands/correlation';
import { SessionsDatabase, type ChangeStatements } from '../shared/sessions-database';
import { invoiceEnvelopes } from './invoice.public-events';
import { InvoiceNumbers } from './invoice-numbers';
import { InvoicesRepository } from './invoices.repository';

type Decide = (invoice: Invoice, now: Date) => InvoiceEvent[];

/** Invoice use cases: the same shape as payment intents (changes in one statement), plus the invoice number. */
@Injectable()
export class InvoicesService {
  private readonly invoices: InvoicesRepository;
  private readonly numbers: InvoiceNumbers;
  private readonly idempotency: IdempotencyKeysRepository;
  private readonly payments: PaymentsRepository;

  constructor(
    private readonly db: SessionsDatabase,
    private readonly config: SessionsConfig,
    private readonly clock: Clock,
  ) {
    this.invoices = new InvoicesRepository(db.schema);
    this.numbers = new InvoiceNumbers(db.schema);
    this.idempotency = new IdempotencyKeysRepository(db.schema);
    this.payments = new PaymentsRepository(db.schema);
  }

  /** Creates an invoice with the next number, or answers the one already created under the same idempotency key. */
  async create(body: unknown, correlationId: string): Promise<InvoiceResource> {
    const { command, ...scope } = parseCommand(SESSIONS_COMMANDS.createInvoice, body);
    const key = command.idempotency_key as string;
    const merchant = parseMerchantSettings(command.merchant);
    const params = parseSessionParams(command.params);
    const feeSchedule = merchantFeeSchedule(merchant.feeOverrides);
    const fingerprint = requestFingerprint(SESSIONS_COMMANDS.createInvoice, command.params);

    return this.db.transaction(async (manager) => {
      const now = this.clock.now();
      const id = newInvoiceId(scope.environment);
      // The key first: a repeated create must not take (and hold the lock of) a number it will not use.
      const expiredBefore = new Date(now.getTime() - this.config.IDEMPOTENCY_TTL_SECONDS * 1000);
      const claim = await this.idempotency.claim(manager, scope, key, 'invoice', id, fingerprint, expiredBefore);
      if (!claim.claimed) return this.replay(manager, scope, claim, fingerprint, now);

      const methods = resolveInvoiceMethods(params.methods, merchant.enabledMethods);
      const events = Invoice.create({
        id,
        number: await this.numbers.next(manager, scope),
        merchantId: scope.merchantId,
        environment: scope.environment,
        amountCents: params.amountCents,
        currency: params.currency,
        description: params.description,
        externalRef: params.externalRef,
        successUrl: params.successUrl,
        cancelUrl: params.cancelUrl,
        methods,
        customer: params.customer,
        metadata: params.metadata,
        expiresInSeconds: params.expiresInSeconds,
        feeSchedule,
        now,
      });
      const invoice = Invoice.fromEvents(events);
      const resource = this.render(invoice.state, now);
      const metadata = eventMetadata(scope, correlationId);
      await this.db.events.append(manager, id, 0, events, metadata, now);
      await this.invoices.insert(manager, invoice.state, resource, now);
      await this.db.outbox.append(manager, this.db.eventsTopic, invoiceEnvelopes(null, events, this.eventContext(now, metadata)));
      return resource;
    });
  }

  async get(body: unknown): Promise<InvoiceResource> {
    const { command, ...scope } = parseCommand(SESSIONS_COMMANDS.getInvoice, body);
    const id = command.id as string;
    const resource = environmentOfInvoiceId(id) === scope.environment ? await this.invoices.findResource(this.db.dataSource.manager, scope, id) : null;
    if (resource === null) throw notFound('invoice', id);
    return invoiceResourceAt(resource, this.clock.now());
  }

  /** Test mode: paid (method defaults to wallet), failed, or expired at once. */
  async simulate(body: unknown, correlationId: string, commandId?: string): Promise<SimulateInvoiceReply> {
    const { command, ...scope } = parseCommand(SESSIONS_COMMANDS.simulateInvoice, body);
    const id = command.id as string;
    const result = command.result as 'paid' | 'failed' | 'expired';
    const methodName = command.method as (typeof INVOICE_METHODS)[number] | undefined;
    const method = methodName === undefined ? undefined : (invoiceMethodNamed(methodName) ?? undefined);
    if (scope.environment !== 'test') throw new ApiError('live_mode_not_allowed', 'Only test invoices can be simulated; use a test key.');
    const resource = await this.change(scope, id, { correlationId, commandId }, (invoice, now) => {
      switch (result) {
        case 'paid':
          return invoice.simulate({ result, method, paymentId: newPaymentId(), now });
        case 'failed':
          return invoice.simulate({ result, method, now });
        case 'expired':
          return invoice.simulate({ result, now });
      }
    });
    return { id: resource.id, status: resource.status, environment: 'test' };
  }

  /** Expires one invoice the expiry job has locked, in the job's transaction; false when it is final already. */
  async expireLocked(manager: EntityManager, due: DueSession, now: Date, correlationId: string): Promise<boolean> {
    const invoice = await this.load(manager, due, due.id);
    if (isFinalInvoiceStatus(invoice.state.status)) return false;
    const change = this.changeOf(invoice, invoice.expire(now), now, eventMetadata(due, correlationId));
    if (change !== null) await this.db.writeChangeIn(manager, change);
    return true;
  }

  lockDue(manager: EntityManager, now: Date, limit: number): Promise<DueSession[]> {
    return this.invoices.lockDue(manager, now, limit);
  }

  /** Sets a session whose expiry failed aside for a while (see ExpiryScheduler); answers its failure count. */
  setAsideExpiry(manager: EntityManager, due: DueSession, now: Date): Promise<number> {
    return this.invoices.setAsideExpiry(manager, due.id, now);
  }

  /** Read, decide, write in one statement; a command that lost a race runs again from the read. */
  private async change(scope: Scope, id: string, caller: CommandMeta, decide: Decide): Promise<InvoiceResource> {
    if (environmentOfInvoiceId(id) !== scope.environment) throw notFound('invoice', id);
    return this.db.retrying(async () => {
      const now = this.clock.now();
      const stream = await this.loadStream(this.db.dataSource.manager, scope, id);
      const invoice = Invoice.fromEvents(stream.map((stored) => stored.event));
      // Sent again after its answer was lost: what it did is already written.
      if (handledCommand(stream, caller.commandId)) return this.render(invoice.state, now);
      const change = this.changeOf(invoice, decide(invoice, now), now, eventMetadata(scope, caller.correlationId, caller.commandId));
      if (change === null) return this.render(invoice.state, now);
      await this.db.writeChange(change);
      return change.resource;
    });
  }

  private async load(manager: EntityManager, scope: Scope, id: string): Promise<Invoice> {
    const stream = await this.loadStream(manager, scope, id);
    return Invoice.fromEvents(stream.map((stored) => stored.event));
  }

  private async loadStream(manager: EntityManager, scope: Scope, id: string): Promise<StoredEvent<InvoiceEvent>[]> {
    const stream = await this.db.events.load<InvoiceEvent>(manager, scope, id);
    if (stream.length === 0) throw notFound('invoice', id);
    return stream;
  }

  /** What the aggregate decided, as the statements that write it (see SessionsDatabase.writeChange); null for nothing. */
  private changeOf(
    invoice: Invoice,
    events: InvoiceEvent[],
    now: Date,
    metadata: EventMetadata,
  ): (ChangeStatements & { resource: InvoiceResource }) | null {
    if (events.length === 0) return null;
    const { state } = invoice.apply(events);
    const resource = this.render(state, now);
    const rest = [this.db.events.appendStatement(invoice.id, invoice.version, events, metadata, now)];
    if (events.some((event) => event.type === 'InvoicePaid') && state.payment !== null) {
      rest.push(
        this.payments.insertStatement({
          id: state.payment.reference,
          merchantId: state.merchantId,
          environment: state.environment,
          sourceType: 'invoice',
          sourceId: state.id,
          method: state.payment.method,
          currency: state.currency,
          amountCents: state.amountCents,
          feeCents: state.feeCents,
          netCents: state.netCents,
          paidAt: state.payment.paidAt,
        }),
      );
    }
    rest.push(this.db.outbox.appendStatement(this.db.eventsTopic, invoiceEnvelopes(invoice, events, this.eventContext(now, metadata))));
    return { resource, readModelUpdate: this.invoices.updateStatement(state, resource, invoice.version, now), rest };
  }

  private async replay(
    manager: EntityManager,
    scope: Scope,
    claim: Extract<IdempotencyClaim, { claimed: false }>,
    fingerprint: string,
    now: Date,
  ): Promise<InvoiceResource> {
    if (claim.objectType !== 'invoice' || claim.fingerprint !== fingerprint) {
      throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request.');
    }
    const resource = await this.invoices.findResource(manager, scope, claim.objectId);
    if (resource === null) throw new Error(`idempotency key points at missing invoice ${claim.objectId}`);
    return invoiceResourceAt(resource, now);
  }

  private render(state: InvoiceState, now: Date): InvoiceResource {
    return toInvoiceResource(state, { checkoutBaseUrl: this.config.PUBLIC_BASE_URL, now });
  }

  private eventContext(now: Date, metadata: EventMetadata) {
    return { checkoutBaseUrl: this.config.PUBLIC_BASE_URL, now, metadata };
  }
}
