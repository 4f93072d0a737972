import type { WebhookEndpointSnapshot } from '@payments/contracts';
import type { EndpointAutoDisabled, EventEnvelope, GatewayEventType } from '@payments/events';
import { OutboxWriter } from '@payments/messaging';
import { ApiError } from '@payments/platform';
import { newWebhookSecret } from '@payments/webhooks';
import type { EntityManager } from 'typeorm';
import { webhookEndpointEvent } from './webhook-endpoint.events';
import {
  changeSettings,
  changesSettings,
  enable,
  type EndpointSettingsChange,
  markDeleted,
  markDisabledByDispatcher,
  MAX_ENDPOINTS_PER_ENVIRONMENT,
  newEndpoint,
  resourceOf,
  rollSecret,
  ROLL_OVERLAP_HOURS,
  type WebhookEndpointResource,
  type WebhookEndpointState,
  type WebhookEndpointWithSecret,
} from './webhook-endpoint.model';
import type { EndpointScope, RecordedAction, WebhookEndpointsRepository } from './webhook-endpoints.repository';
import type { WebhookSecrets } from './webhook-secrets';
import type { WebhookTargetPolicy } from './webhook-target.policy';

export interface CreateEndpointInput {
  url: string;
  events: string[] | null;
  /** The request's Idempotency-Key, when it had one. */
  idempotencyKey: string | null;
}

/**
 * The webhook endpoint use cases. Every change writes the row and its `webhook_endpoint.*` event to the
 * outbox in one transaction: the dispatcher learns of exactly the changes that committed, in version order.
 */
export class WebhookEndpointsService {
  private readonly outbox: OutboxWriter;

  constructor(
    private readonly repository: WebhookEndpointsRepository,
    private readonly secrets: WebhookSecrets,
    private readonly targets: WebhookTargetPolicy,
    private readonly options: { schema: string; eventsTopic: string; idempotencyTtlSeconds: number },
  ) {
    this.outbox = new OutboxWriter({ schema: options.schema });
  }

  async create(scope: EndpointScope, input: CreateEndpointInput, correlationId: string): Promise<WebhookEndpointWithSecret> {
    // Resolved before the transaction: a slow DNS answer must not hold the merchant's lock.
    await this.targets.assertAllowed(input.url, 'url', scope.merchantId);
    return this.repository.transaction(async (manager) => {
      if (!(await this.repository.lockMerchant(manager, scope.merchantId))) {
        throw new Error(`merchant ${scope.merchantId} of an authenticated key is missing`);
      }
      if (input.idempotencyKey !== null) {
        const earlier = await this.repository.findByIdempotencyKey(manager, scope, input.idempotencyKey);
        if (earlier) return this.replayCreation(earlier, input);
      }
      if ((await this.repository.countActive(manager, scope)) >= MAX_ENDPOINTS_PER_ENVIRONMENT) {
        throw new ApiError(
          'invalid_request',
          `At most ${MAX_ENDPOINTS_PER_ENVIRONMENT} webhook endpoints per environment; delete one you no longer use.`,
        );
      }
      const secret = newWebhookSecret();
      const endpoint = newEndpoint({
        ...scope,
        url: input.url,
        events: input.events,
        secretEncrypted: this.secrets.encrypt(secret),
        now: new Date(),
      });
      await this.repository.insert(manager, endpoint, input.idempotencyKey);
      await this.publish(manager, 'webhook_endpoint.created', endpoint, correlationId);
      return { ...resourceOf(endpoint), secret };
    });
  }

  /** Every endpoint of the merchant in this environment (few: no pages). */
  async list(scope: EndpointScope): Promise<{ object: 'list'; data: WebhookEndpointResource[]; has_more: false }> {
    const now = new Date();
    return { object: 'list', data: (await this.repository.list(scope)).map((endpoint) => resourceOf(endpoint, now)), has_more: false };
  }

  async get(scope: EndpointScope, id: string): Promise<WebhookEndpointResource> {
    return resourceOf(await this.require(scope, id));
  }

  /** The endpoint of the caller (404 otherwise): the visibility routes check it before asking the dispatcher. */
  async require(scope: EndpointScope, id: string, manager?: EntityManager, forUpdate = false): Promise<WebhookEndpointState> {
    const endpoint = await this.repository.find(scope, id, manager, forUpdate);
    if (!endpoint) throw notFound(id);
    return endpoint;
  }

  async delete(scope: EndpointScope, id: string, correlationId: string): Promise<{ id: string; object: 'webhook_endpoint'; deleted: true }> {
    await this.change(scope, id, correlationId, 'webhook_endpoint.deleted', (endpoint, now) => markDeleted(endpoint, now));
    return { id, object: 'webhook_endpoint', deleted: true };
  }

  /**
   * A new address or new event types (DESIGN §8 lets the developer page set them; the API does the same for
   * automation). The address is checked like a create's, before the transaction. Settings the endpoint already has
   * change nothing, so a retry is harmless without an Idempotency-Key. The dispatcher sends what is still due to
   * the new address and catches up on events of types added since the change.
   */
  async update(scope: EndpointScope, id: string, change: EndpointSettingsChange, correlationId: string): Promise<WebhookEndpointResource> {
    if (change.url === undefined && change.events === undefined) {
      throw new ApiError('invalid_request', 'Nothing to change: give url, events or both.');
    }
    if (change.url !== undefined) await this.targets.assertAllowed(change.url, 'url', scope.merchantId);
    const endpoint = await this.repository.transaction(async (manager) => {
      const current = await this.require(scope, id, manager, true);
      if (!changesSettings(current, change)) return current;
      return this.changeIn(manager, current, correlationId, 'webhook_endpoint.updated', (locked, now) => changeSettings(locked, change, now));
    });
    return resourceOf(endpoint);
  }

  /**
   * A new secret, shown once; the old one keeps signing for `overlapHours` (default 24, 0 = not at all). Under an
   * Idempotency-Key it rolls once: a retry answers the secret of that roll (never a second roll, which would make
   * the first new secret "previous" and drop the original at once).
   */
  async rollSecret(
    scope: EndpointScope,
    id: string,
    overlapHours: number | undefined,
    correlationId: string,
    idempotencyKey?: string,
  ): Promise<WebhookEndpointWithSecret> {
    const hours = overlapHours ?? ROLL_OVERLAP_HOURS;
    const secret = newWebhookSecret();
    const secretEncrypted = this.secrets.encrypt(secret);
    const action = { action: 'roll_secret' as const, endpointId: id, fingerprint: `roll_secret:${id}:${hours}`, secretEncrypted };
    const outcome = await this.changeOnce(scope, id, correlationId, idempotencyKey, action, (current, now) => rollSecret(current, secretEncrypted, hours, now));
    const shown = outcome.earlier ? this.secrets.decrypt(outcome.earlier.secretEncrypted!) : secret;
    return { ...resourceOf(outcome.endpoint), secret: shown };
  }

  /**
   * Enabled again (also when this gateway never saw it disabled: the dispatcher disables endpoints that keep
   * failing, and re-enabling is the merchant's word that the receiver works again). Once per Idempotency-Key.
   */
  async enable(scope: EndpointScope, id: string, correlationId: string, idempotencyKey?: string): Promise<WebhookEndpointResource> {
    const action = { action: 'enable' as const, endpointId: id, fingerprint: `enable:${id}`, secretEncrypted: null };
    return resourceOf((await this.changeOnce(scope, id, correlationId, idempotencyKey, action, (current, now) => enable(current, now))).endpoint);
  }

  /**
   * change(), done at most once per Idempotency-Key: the key is recorded in the same transaction as the change,
   * so a retry finds it however the first answer was lost; the same key on another action is 409. The endpoint's
   * row lock orders concurrent retries. Without a key it is a plain change.
   */
  private async changeOnce(
    scope: EndpointScope,
    id: string,
    correlationId: string,
    idempotencyKey: string | undefined,
    action: RecordedAction,
    apply: (endpoint: WebhookEndpointState, now: Date) => WebhookEndpointState,
  ): Promise<{ endpoint: WebhookEndpointState; earlier?: RecordedAction }> {
    if (idempotencyKey === undefined) return { endpoint: await this.change(scope, id, correlationId, 'webhook_endpoint.updated', apply) };
    return this.repository.transaction(async (manager) => {
      const current = await this.require(scope, id, manager, true);
      const expiredBefore = new Date(Date.now() - this.options.idempotencyTtlSeconds * 1000);
      const earlier = await this.repository.findAction(manager, scope, idempotencyKey, expiredBefore);
      if (earlier) {
        if (earlier.fingerprint !== action.fingerprint) {
          throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request.');
        }
        return { endpoint: current, earlier };
      }
      const endpoint = await this.changeIn(manager, current, correlationId, 'webhook_endpoint.updated', apply);
      await this.repository.recordAction(manager, scope, idempotencyKey, action);
      return { endpoint };
    });
  }

  /**
   * The dispatcher's `webhook_endpoint.auto_disabled` (it answered 410, or failed for 5 days): the endpoint shows
   * as disabled with the reason until the merchant enables it. Runs in the consumer's transaction (inbox).
   */
  async applyDispatcherEvent(
    envelope: EventEnvelope,
    manager: EntityManager,
  ): Promise<{ outcome: 'applied'; endpoint: WebhookEndpointState } | { outcome: 'stale' | 'ignored' }> {
    if (envelope.type !== 'webhook_endpoint.auto_disabled') return { outcome: 'ignored' };
    const before = await this.repository.findForUpdate(manager, envelope.aggregate_id);
    if (!before || before.merchantId !== envelope.merchant_id || before.environment !== envelope.environment) return { outcome: 'ignored' };
    const data = envelope.data as unknown as EndpointAutoDisabled;
    const after = markDisabledByDispatcher(before, envelope.sequence, data.reason, new Date(data.disabled_at));
    if (after === null) return { outcome: 'stale' };
    await this.repository.update(manager, before, after);
    return { outcome: 'applied', endpoint: after };
  }

  private async change(
    scope: EndpointScope,
    id: string,
    correlationId: string,
    type: GatewayEventType,
    apply: (endpoint: WebhookEndpointState, now: Date) => WebhookEndpointState,
  ): Promise<WebhookEndpointState> {
    return this.repository.transaction(async (manager) => this.changeIn(manager, await this.require(scope, id, manager, true), correlationId, type, apply));
  }

  /** The change of a locked endpoint, in the caller's transaction: the row, then its event. */
  private async changeIn(
    manager: EntityManager,
    before: WebhookEndpointState,
    correlationId: string,
    type: GatewayEventType,
    apply: (endpoint: WebhookEndpointState, now: Date) => WebhookEndpointState,
  ): Promise<WebhookEndpointState> {
    // Never before the last change: events of one endpoint keep increasing times as well as versions.
    const now = new Date(Math.max(Date.now(), before.updatedAt.getTime()));
    const after = apply(before, now);
    await this.repository.update(manager, before, after);
    await this.publish(manager, type, after, correlationId);
    return after;
  }

  /**
   * The endpoint an earlier create made under this key, reached only once the gateway's replay record (which
   * holds the first answer, secret included, encrypted) is gone. A secret is shown once: this answer never
   * reveals it (the current one may even be a later roll's). The merchant rolls the secret to see a new one.
   */
  private replayCreation(earlier: WebhookEndpointState, input: CreateEndpointInput): WebhookEndpointWithSecret {
    const sameRequest = earlier.url === input.url && JSON.stringify(earlier.events) === JSON.stringify(input.events);
    if (!sameRequest || earlier.status === 'deleted') {
      throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request.');
    }
    return { ...resourceOf(earlier), secret: null };
  }

  private async publish(manager: EntityManager, type: GatewayEventType, endpoint: WebhookEndpointState, correlationId: string): Promise<void> {
    const event: EventEnvelope<WebhookEndpointSnapshot> = webhookEndpointEvent(type, endpoint, correlationId);
    await this.outbox.append(manager, this.options.eventsTopic, [event]);
  }
}

export function notFound(id: string): ApiError {
  return new ApiError('not_found', `No webhook endpoint ${id.slice(0, 80)}.`, 'id');
}
