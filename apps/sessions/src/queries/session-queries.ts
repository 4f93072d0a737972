import {
  resolveListFilter,
  SESSIONS_COMMANDS,
  type ListFilter,
  type ListInvoicesCommand,
  type ListPaymentIntentsCommand,
  type SessionEventView,
  type SessionsCommandName,
  type SessionsList,
} from '@payments/contracts';
import { environmentOfInvoiceId, environmentOfPaymentIntentId } from '@payments/ids';
import { ApiError } from '@payments/platform';
import type { EntityManager } from 'typeorm';
import { SessionNotFoundError } from '../command-pipeline/command-errors';
import type { SessionAggregate, SessionKind } from '../command-pipeline/session-kind';
import { parseCommand } from '../commands/command-input';
import type { EventStore } from '../event-store/event-store';
import type { SessionReadModel, SessionRow } from '../persistence/session-read-model';
import type { Clock } from '../shared/clock';

/** One kind's read side for the dashboard: its read-model rows and how its stored resources and events read. */
export interface QueriedKind<R> {
  readonly listCommand: SessionsCommandName;
  readonly rows: Pick<SessionReadModel<SessionRow, R>, 'list'>;
  readonly kind: AnyKind<R>;
}

/** Any kind's aggregate, as far as the timeline folds it (its event and state types do not matter here). */
interface AnyAggregate extends SessionAggregate<unknown, { readonly type: string }, AnyAggregate> {
  readonly state: unknown;
}
type AnyKind<R> = SessionKind<AnyAggregate, unknown, { readonly type: string }, R>;

/**
 * The dashboard's reads of sessions, from the same read model and event store the API's GET reads: filtered lists
 * of intents and invoices, and the timeline of one. Every query is scoped by merchant and environment; an id of
 * another scope is refused as a cursor and not found as a timeline.
 */
export class SessionQueries {
  constructor(
    private readonly manager: () => EntityManager,
    private readonly events: EventStore,
    private readonly intents: QueriedKind<unknown>,
    private readonly invoices: QueriedKind<unknown>,
    private readonly clock: Clock,
  ) {}

  listPaymentIntents(body: unknown): Promise<SessionsList<unknown>> {
    return this.list<ListPaymentIntentsCommand>(this.intents, body);
  }

  listInvoices(body: unknown): Promise<SessionsList<unknown>> {
    return this.list<ListInvoicesCommand>(this.invoices, body);
  }

  /** The session's stored events, oldest first, each with its sequence and the public event it became (if any). */
  async listEvents(body: unknown): Promise<SessionsList<SessionEventView>> {
    const { command, ...scope } = parseCommand(SESSIONS_COMMANDS.listSessionEvents, body);
    const id = command.id as string;
    const queried = environmentOfPaymentIntentId(id) !== null ? this.intents : environmentOfInvoiceId(id) !== null ? this.invoices : null;
    const label = queried === this.invoices ? 'invoice' : 'payment intent';
    if (queried === null || queried.kind.environmentOf(id) !== scope.environment) throw new SessionNotFoundError(label, id);
    const stream = await this.events.load(this.manager(), scope, id);
    if (stream.length === 0) throw new SessionNotFoundError(label, id);
    let current: AnyAggregate | null = null;
    const data = stream.map((stored): SessionEventView => {
      // Folded as the pipeline folds a decision: the public type of an event depends on the state right after it.
      const after: AnyAggregate = current === null ? queried.kind.fromEvents([stored.event]) : current.apply([stored.event]);
      current = after;
      return {
        object: 'session_event',
        sequence: stored.version,
        type: queried.kind.publicType(stored.event, after.state),
        name: stored.event.type,
        occurred_at: stored.occurredAt.toISOString(),
      };
    });
    return { object: 'list', data, has_more: false };
  }

  private async list<C extends ListFilter & { limit: number; starting_after?: string; external_ref?: string }>(queried: QueriedKind<unknown>, body: unknown): Promise<SessionsList<unknown>> {
    const { command: raw, ...scope } = parseCommand(queried.listCommand, body);
    const command = raw as unknown as C;
    const resolved = resolveListFilter(command);
    if (!resolved.ok) throw new ApiError('invalid_request', resolved.message, resolved.param);
    const now = this.clock.now();
    const page = await queried.rows.list(
      this.manager(),
      scope,
      { ...resolved.filter, externalRef: command.external_ref ?? null },
      now,
      command.limit,
      command.starting_after ?? null,
    );
    if (page === null) throw new ApiError('invalid_request', `starting_after is not a ${queried.kind.label} of this account`, 'starting_after');
    return { object: 'list', data: page.resources.map((resource) => queried.kind.renderStoredAt(resource, now)), has_more: page.hasMore };
  }
}
