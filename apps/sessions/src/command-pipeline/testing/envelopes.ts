import type { EventEnvelope } from '@payments/events';
import type { EventMetadata } from '../../event-store/event-store';
import { foldDecision } from '../session-commands';
import type { SessionAggregate, SessionKind } from '../session-kind';

/** The public events a decision makes, as the command pipeline folds it (for specs of a kind's events). */
export function envelopesOf<A extends SessionAggregate<S, E, A>, S, E extends { readonly type: string }, R, D>(
  kind: SessionKind<A, S, E, R>,
  before: A | null,
  events: readonly E[],
  context: { now: Date; metadata: EventMetadata },
): EventEnvelope<D>[] {
  const scope = { merchantId: context.metadata.merchant_id, environment: context.metadata.environment };
  return foldDecision(kind, before, scope, events, context.now, context.metadata).envelopes as EventEnvelope<D>[];
}
