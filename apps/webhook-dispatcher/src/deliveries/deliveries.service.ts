import {
  validateCommand,
  WEBHOOKS_COMMANDS,
  type DeliveryAttemptView,
  type DeliveryList,
  type DeliveryView,
  type EndpointScope,
  type ListDeliveriesCommand,
  type ListObjectDeliveriesCommand,
  type ObjectDeliveryList,
  type ReplayEndpointCommand,
  type ReplayResult,
  type ResendDeliveryCommand,
  type SendTestEventCommand,
  type WebhooksCommandName,
} from '@payments/contracts';
import { newEventId } from '@payments/events';
import { ApiError } from '@payments/platform';
import { renderTestWebhook, TEST_EVENT_TYPE } from '@payments/webhooks';
import type { EntityManager } from 'typeorm';
import type { EndpointsRepository } from '../endpoints/endpoints.repository';
import type { EventsRepository } from '../events/events.repository';
import { isActive, type EndpointRow } from '../shared/endpoint-row';
import type { WebhooksDatabase } from '../shared/webhooks-database';
import type { CommandResultsRepository } from './command-results.repository';
import type { DeliveriesRepository } from './deliveries.repository';

const DEFAULT_LIMIT = 50;

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryView['status'];
  attempt_count: number;
  next_attempt_at: Date | null;
  created_at: Date;
}

interface AttemptRow {
  delivery_id: string;
  attempted_at: Date;
  status_code: number | null;
  latency_ms: number | null;
  response_excerpt: string | null;
  error: string | null;
  next_attempt_at: Date | null;
}

const invalid = (message: string, param: string) => new ApiError('invalid_request', message, param);

/** The command checked against its schema in @payments/contracts (400 naming the field), and its endpoint's scope. */
function parseCommand<T extends EndpointScope>(name: WebhooksCommandName, body: unknown): { scope: EndpointScope; command: T } {
  const check = validateCommand(name, body);
  if (!check.ok) throw invalid(check.message, check.param);
  const command = body as T;
  return { scope: { merchant_id: command.merchant_id, environment: command.environment, endpoint_id: command.endpoint_id }, command };
}

function parseTime(value: unknown, param: string): Date {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(Date.parse(value))) {
    throw invalid(`${param} must be an ISO 8601 date-time.`, param);
  }
  return new Date(value);
}

/**
 * The gateway's commands about deliveries, each scoped to one endpoint of one merchant and environment (an
 * endpoint of someone else is not found): list deliveries with their attempts, resend one, replay a time range,
 * send a signed test event.
 */
export class DeliveriesService {
  constructor(
    private readonly db: WebhooksDatabase,
    private readonly endpoints: EndpointsRepository,
    private readonly events: EventsRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly commandResults: CommandResultsRepository,
    private readonly retentionDays: number,
  ) {}

  /** Who sent a command that schedules deliveries, for doing it once per command id. */
  private origin(name: string, scope: EndpointScope, command: object, commandId: string | undefined) {
    return { merchantId: scope.merchant_id, environment: scope.environment, commandId, fingerprint: `${name}:${JSON.stringify(command)}` };
  }

  async list(body: unknown): Promise<DeliveryList> {
    const { scope, command } = parseCommand<ListDeliveriesCommand>(WEBHOOKS_COMMANDS.listDeliveries, body);
    const limit = command.limit ?? DEFAULT_LIMIT;
    const manager = this.db.dataSource.manager;
    await this.requireEndpoint(manager, scope);
    const t = (name: string) => this.db.table(name);
    const params: unknown[] = [scope.endpoint_id, limit + 1];
    let after = '';
    if (command.starting_after !== undefined) {
      const cursor = (await manager.query(`SELECT 1 FROM ${t('deliveries')} WHERE id = $1 AND endpoint_id = $2`, [
        command.starting_after,
        scope.endpoint_id,
      ])) as unknown[];
      if (cursor.length === 0) throw invalid('starting_after is not a delivery of this endpoint.', 'starting_after');
      params.push(command.starting_after);
      // Compared in SQL: created_at has microseconds, a JavaScript Date only milliseconds.
      after = `AND (d.created_at, d.id) < (SELECT created_at, id FROM ${t('deliveries')} WHERE id = $3)`;
    }
    const rows = (await manager.query(
      `SELECT d.id, d.endpoint_id, d.event_id, ev.type AS event_type, d.status, d.attempt_count, d.next_attempt_at, d.created_at
       FROM ${t('deliveries')} d JOIN ${t('events')} ev ON ev.id = d.event_id
       WHERE d.endpoint_id = $1 ${after}
       ORDER BY d.created_at DESC, d.id DESC
       LIMIT $2`,
      params,
    )) as DeliveryRow[];
    const page = rows.slice(0, limit);
    return { object: 'list', data: await this.views(manager, page), has_more: rows.length > limit };
  }

  /**
   * The deliveries of one object's events (an intent's, an invoice's, a refund's), to every endpoint, newest
   * first, with their attempts. The events are looked for within the merchant's scope only: another merchant's or
   * environment's object has none, and a cursor outside the list is refused.
   */
  async listOfObject(body: unknown): Promise<ObjectDeliveryList> {
    const check = validateCommand(WEBHOOKS_COMMANDS.listObjectDeliveries, body);
    if (!check.ok) throw invalid(check.message, check.param);
    const command = body as ListObjectDeliveriesCommand;
    const limit = command.limit ?? DEFAULT_LIMIT;
    const manager = this.db.dataSource.manager;
    const t = (name: string) => this.db.table(name);
    const from = `${t('events')} ev JOIN ${t('deliveries')} d ON d.event_id = ev.id JOIN ${t('endpoints')} e ON e.id = d.endpoint_id
       WHERE ev.merchant_id = $1 AND ev.environment = $2 AND ev.aggregate_id = $3 AND e.merchant_id = $1 AND e.environment = $2`;
    const params: unknown[] = [command.merchant_id, command.environment, command.object_id];
    let after = '';
    if (command.starting_after !== undefined) {
      const cursor = (await manager.query(`SELECT 1 FROM ${from} AND d.id = $4`, [...params, command.starting_after])) as unknown[];
      if (cursor.length === 0) throw invalid('starting_after is not a delivery of this object.', 'starting_after');
      params.push(command.starting_after);
      after = `AND (d.created_at, d.id) < (SELECT created_at, id FROM ${t('deliveries')} WHERE id = $4)`;
    }
    params.push(limit + 1);
    const rows = (await manager.query(
      `SELECT d.id, d.endpoint_id, d.event_id, ev.type AS event_type, ev.sequence AS event_sequence, e.url AS endpoint_url,
              d.status, d.attempt_count, d.next_attempt_at, d.created_at
       FROM ${from} ${after}
       ORDER BY d.created_at DESC, d.id DESC
       LIMIT $${params.length}`,
      params,
    )) as Array<DeliveryRow & { event_sequence: number; endpoint_url: string }>;
    const page = rows.slice(0, limit);
    const views = await this.views(manager, page);
    return {
      object: 'list',
      data: views.map((view, i) => ({ ...view, event_sequence: page[i]!.event_sequence, endpoint_url: page[i]!.endpoint_url })),
      has_more: rows.length > limit,
    };
  }

  /** A new delivery of the same event (same id and body) to the endpoint, due now; once per command id. */
  async resend(body: unknown, commandId?: string): Promise<DeliveryView> {
    const { scope, command } = parseCommand<ResendDeliveryCommand>(WEBHOOKS_COMMANDS.resendDelivery, body);
    const deliveryId = command.delivery_id;
    return this.db.dataSource.transaction(async (manager) => {
      const id = await this.commandResults.once(manager, this.origin('resend', scope, command, commandId), () => this.scheduleResend(manager, scope, deliveryId));
      return this.view(manager, id);
    });
  }

  private async scheduleResend(manager: EntityManager, scope: EndpointScope, deliveryId: string): Promise<string> {
    const endpoint = await this.requireEndpoint(manager, scope);
    this.requireActive(endpoint);
    const original = (await manager.query(`SELECT event_id FROM ${this.db.table('deliveries')} WHERE id = $1 AND endpoint_id = $2`, [
      deliveryId,
      endpoint.id,
    ])) as Array<{ event_id: string }>;
    if (original.length === 0) throw new ApiError('not_found', `No such delivery: ${deliveryId}`, 'delivery_id');
    const [id] = await this.deliveries.schedule(manager, endpoint.id, [original[0]!.event_id], 'resend');
    await this.db.notifyDeliveries(manager);
    return id!;
  }

  /** New deliveries of every event of the endpoint that occurred in [from, to) (events are kept 30 days). */
  async replay(body: unknown, commandId?: string): Promise<ReplayResult> {
    const { scope, command } = parseCommand<ReplayEndpointCommand>(WEBHOOKS_COMMANDS.replayEndpoint, body);
    const from = parseTime(command.from, 'from');
    const requestedTo = parseTime(command.to, 'to');
    if (from.getTime() >= requestedTo.getTime()) throw invalid('from must be before to.', 'from');
    const now = new Date();
    const oldest = now.getTime() - this.retentionDays * 24 * 3600 * 1000;
    if (from.getTime() < oldest) throw invalid(`Events are kept ${this.retentionDays} days: from must be within them.`, 'from');
    const to = new Date(Math.min(requestedTo.getTime(), now.getTime()));
    return this.db.dataSource.transaction(async (manager) =>
      this.commandResults.once(manager, this.origin('replay', scope, command, commandId), async (): Promise<ReplayResult> => {
        const endpoint = await this.requireEndpoint(manager, scope);
        this.requireActive(endpoint);
        const eventIds = await this.events.idsInRange(manager, endpoint, from, to);
        await this.deliveries.schedule(manager, endpoint.id, eventIds, 'replay');
        if (eventIds.length > 0) await this.db.notifyDeliveries(manager);
        return { object: 'webhook_replay', endpoint_id: endpoint.id, from: from.toISOString(), to: to.toISOString(), scheduled: eventIds.length };
      }),
    );
  }

  /** A signed `webhook_endpoint.test` event to the endpoint (one attempt; also to a disabled endpoint). */
  async sendTest(body: unknown, commandId?: string): Promise<DeliveryView> {
    const { scope, command } = parseCommand<SendTestEventCommand>(WEBHOOKS_COMMANDS.sendTestEvent, body);
    return this.db.dataSource.transaction(async (manager) => {
      const deliveryId = await this.commandResults.once(manager, this.origin('test', scope, command, commandId), () => this.scheduleTest(manager, scope));
      return this.view(manager, deliveryId);
    });
  }

  private async scheduleTest(manager: EntityManager, scope: EndpointScope): Promise<string> {
    const endpoint = await this.requireEndpoint(manager, scope);
    const now = new Date();
    const id = newEventId();
    const rendered = renderTestWebhook({
      id,
      endpoint: { id: endpoint.id, url: endpoint.url, environment: endpoint.environment, sequence: endpoint.sequence },
      occurredAt: now,
    });
    await this.events.insert(manager, {
      id,
      merchantId: endpoint.merchant_id,
      environment: endpoint.environment,
      type: TEST_EVENT_TYPE,
      aggregateId: endpoint.id,
      sequence: endpoint.sequence,
      occurredAt: now,
      scheme: rendered.scheme,
      body: rendered.body,
      endpointId: endpoint.id,
    });
    const [deliveryId] = await this.deliveries.schedule(manager, endpoint.id, [id], 'test');
    await this.db.notifyDeliveries(manager);
    return deliveryId!;
  }

  private async requireEndpoint(manager: EntityManager, scope: EndpointScope): Promise<EndpointRow> {
    const endpoint = await this.endpoints.findInScope(manager, scope);
    if (!endpoint) throw new ApiError('not_found', `No such webhook endpoint: ${scope.endpoint_id}`, 'endpoint_id');
    return endpoint;
  }

  private requireActive(endpoint: EndpointRow): void {
    if (!isActive(endpoint)) throw new ApiError('invalid_state', 'The webhook endpoint is disabled; enable it first.');
  }

  private async view(manager: EntityManager, deliveryId: string): Promise<DeliveryView> {
    const rows = (await manager.query(
      `SELECT d.id, d.endpoint_id, d.event_id, ev.type AS event_type, d.status, d.attempt_count, d.next_attempt_at, d.created_at
       FROM ${this.db.table('deliveries')} d JOIN ${this.db.table('events')} ev ON ev.id = d.event_id WHERE d.id = $1`,
      [deliveryId],
    )) as DeliveryRow[];
    const [view] = await this.views(manager, rows);
    return view!;
  }

  private async views(manager: EntityManager, rows: DeliveryRow[]): Promise<DeliveryView[]> {
    if (rows.length === 0) return [];
    const attempts = (await manager.query(
      `SELECT delivery_id, attempted_at, status_code, latency_ms, response_excerpt, error, next_attempt_at
       FROM ${this.db.table('attempts')} WHERE delivery_id = ANY($1::text[]) ORDER BY id`,
      [rows.map((row) => row.id)],
    )) as AttemptRow[];
    const byDelivery = new Map<string, DeliveryAttemptView[]>();
    for (const attempt of attempts) {
      const list = byDelivery.get(attempt.delivery_id) ?? [];
      list.push({
        attempted_at: attempt.attempted_at.toISOString(),
        status_code: attempt.status_code,
        latency_ms: attempt.latency_ms,
        response_excerpt: attempt.response_excerpt,
        error: attempt.error,
        next_attempt_at: attempt.next_attempt_at?.toISOString() ?? null,
      });
      byDelivery.set(attempt.delivery_id, list);
    }
    return rows.map((row) => ({
      id: row.id,
      object: 'webhook_delivery',
      endpoint_id: row.endpoint_id,
      event_id: row.event_id,
      event_type: row.event_type,
      status: row.status,
      attempt_count: row.attempt_count,
      next_attempt_at: row.status === 'pending' && row.next_attempt_at !== null ? row.next_attempt_at.toISOString() : null,
      created_at: row.created_at.toISOString(),
      attempts: byDelivery.get(row.id) ?? [],
    }));
  }
}
