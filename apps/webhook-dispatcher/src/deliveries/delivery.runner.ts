import { Logger } from '@nestjs/common';
import { newEnvelope, type EndpointAutoDisabled } from '@payments/events';
import { SpanKind, type Span } from '@opentelemetry/api';
import { TurnBatcher, type OutboxWriter } from '@payments/messaging';
import { inSpan, tracedContextOf, tracingEnabled } from '@payments/tracing';
import { failingTooLong, nextStep, signedWebhookHeaders, type NextStep } from '@payments/webhooks';
import type { EntityManager } from 'typeorm';
import type { AutoDisableReason, EndpointsRepository } from '../endpoints/endpoints.repository';
import { isActive } from '../shared/endpoint-row';
import { webhookAttemptDuration, webhookAttempts, webhookEndpointAttempts, webhookEndpointsDisabled } from '../shared/webhooks-metrics';
import type { WebhooksDatabase } from '../shared/webhooks-database';
import type { AttemptRecord, ClaimedDelivery, DeliveriesRepository, Success } from './deliveries.repository';
import { signingSecrets } from './signing-secrets';
import type { SendResult, WebhookSender } from './webhook.sender';

export interface DeliveryRunnerSettings {
  userAgent: string;
  retryScheduleMs: readonly number[];
  disableAfterMs: number;
  secretsKey: Buffer;
  /** Where `webhook_endpoint.auto_disabled` goes (the gateway shows the endpoint as disabled from it). */
  eventsTopic: string;
}

export type AttemptResult = NextStep['action'] | 'abandoned' | 'lease_lost';

/**
 * Makes one attempt of a claimed delivery and records it: signs the stored body afresh (current secret, plus the
 * previous one during a roll), sends it, stores the attempt and decides what comes next, atomically and guarded
 * by the lease (a success in one statement batched with others, a failure in a transaction). Endpoint health
 * follows from it: a success clears the failing streak, a failure holds the endpoint's pending deliveries in its
 * own queue, a 410 disables the endpoint at once, and failing without a success for WEBHOOK_DISABLE_AFTER_MS
 * disables it too; each disabling ends its pending deliveries, leaves a notification row and publishes
 * `webhook_endpoint.auto_disabled` (from which the gateway shows it and e-mails the merchant).
 */
export class DeliveryRunner {
  private readonly logger = new Logger('DeliveryRunner');

  constructor(
    private readonly db: WebhooksDatabase,
    private readonly deliveries: DeliveriesRepository,
    private readonly endpoints: EndpointsRepository,
    private readonly sender: WebhookSender,
    private readonly settings: DeliveryRunnerSettings,
    private readonly outbox: OutboxWriter,
  ) {}

  /** Successes are the hot path of delivery: those finishing together are recorded in one statement. */
  private readonly successes = new TurnBatcher<Success, boolean>((batch) => this.deliveries.recordSuccesses(batch));

  /**
   * `sent` is called once the endpoint has answered (or failed to), before the attempt is recorded; `retryAt` with
   * the time of the next attempt once a retry is recorded.
   */
  async run(claimed: ClaimedDelivery, sent: () => void = () => undefined, retryAt: (at: Date) => void = () => undefined): Promise<AttemptResult> {
    // Each attempt is a span of the trace the event arrived in (stored with it), whenever the attempt happens; an
    // event that arrived untraced (not sampled) gets none.
    const parent = tracingEnabled() ? tracedContextOf(parseTraceContext(claimed.event.traceContext)) : undefined;
    if (!parent) return this.runAttempt(claimed, sent, retryAt);
    return inSpan(
      'webhook attempt',
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'payments.delivery_id': claimed.id,
          'payments.endpoint_id': claimed.endpoint.id,
          'payments.event_id': claimed.event.id,
          'payments.event_type': claimed.event.type,
          'payments.attempt': claimed.attemptCount + 1,
        },
      },
      parent,
      (span) => this.runAttempt(claimed, sent, retryAt, span),
    );
  }

  private async runAttempt(claimed: ClaimedDelivery, sent: () => void, retryAt: (at: Date) => void, span?: Span): Promise<AttemptResult> {
    const endpoint = claimed.endpoint;
    // A test event may go to a disabled endpoint (to check it works again); nothing goes to a deleted one.
    const deliverable = claimed.kind === 'test' ? endpoint.deleted_at === null : isActive(endpoint);
    if (!deliverable) {
      await this.deliveries.abandon(claimed, endpoint.deleted_at !== null ? 'endpoint_deleted' : 'endpoint_disabled');
      return 'abandoned';
    }

    const attemptedAt = new Date();
    const result = await this.attempt(claimed, attemptedAt);
    sent();
    webhookAttemptDuration.observe((result.latencyMs ?? 0) / 1000);
    const attemptNumber = claimed.attemptCount + 1;
    let step = nextStep(result.outcome, attemptNumber, { schedule: this.settings.retryScheduleMs, now: new Date() });
    // A test event gets one attempt: it answers "does the endpoint work now", it is not a delivery to insist on.
    if (claimed.kind === 'test' && step.action === 'retry') step = { action: 'failed' };

    const record = this.record(result, attemptedAt, step);
    // A test event does not count toward the endpoint's health.
    const recorded =
      step.action === 'succeeded'
        ? await this.successes.submit({ claimed, record, healthCounts: claimed.kind !== 'test' })
        : await this.recordFailure(claimed, record, step);
    if (!recorded) {
      // Another instance took the delivery over after this lease ran out (the attempt outlived it).
      this.logger.warn({ delivery: claimed.id }, 'lease lost before the attempt was recorded; the attempt is kept as history only');
      return 'lease_lost';
    }
    if (span) {
      if (result.statusCode !== null) span.setAttribute('http.response.status_code', result.statusCode);
      span.setAttribute('payments.outcome', step.action);
    }
    const counted = result.refused ? 'refused' : step.action;
    webhookAttempts.inc({ result: counted });
    if (claimed.kind !== 'test') webhookEndpointAttempts.inc({ endpoint_id: endpoint.id, result: counted });
    if (record.next.status === 'pending') retryAt(record.next.nextAttemptAt);
    if (step.action === 'succeeded') {
      this.logger.debug({ delivery: claimed.id, endpoint: endpoint.id, event: claimed.event.id, attempt: attemptNumber }, 'webhook delivered');
    } else {
      this.logger.log(
        { delivery: claimed.id, endpoint: endpoint.id, attempt: attemptNumber, status: result.statusCode, error: result.error, next: step },
        'webhook attempt failed',
      );
    }
    return step.action;
  }

  /**
   * A failed attempt, in one transaction with what it does to the endpoint: a 410 disables it at once (a test
   * event's too: the receiver says the endpoint is gone), otherwise the failing streak goes on (test events aside),
   * and one longer than WEBHOOK_DISABLE_AFTER_MS disables it too.
   */
  private recordFailure(claimed: ClaimedDelivery, record: AttemptRecord, step: NextStep): Promise<boolean> {
    const endpointId = claimed.endpoint.id;
    return this.db.dataSource.transaction(async (manager) => {
      const kept = await this.deliveries.recordAttempt(manager, claimed, record);
      if (!kept) return kept;
      if (step.action === 'endpoint_gone') {
        await this.disable(manager, endpointId, 'gone', record.attemptedAt, { status_code: 410, delivery_id: claimed.id });
      } else if (claimed.kind !== 'test') {
        const failingSince = await this.endpoints.markFailing(manager, endpointId, record.attemptedAt);
        if (failingTooLong(failingSince, new Date(), this.settings.disableAfterMs)) {
          await this.disable(manager, endpointId, 'failing', failingSince!, { failing_since: failingSince!.toISOString() });
        } else {
          await this.deliveries.hold(manager, endpointId);
        }
      }
      return kept;
    });
  }

  private async attempt(claimed: ClaimedDelivery, at: Date): Promise<SendResult> {
    let secrets: string[];
    try {
      secrets = signingSecrets(claimed.endpoint, at, this.settings.secretsKey);
    } catch (error) {
      // A key mismatch between gateway and dispatcher: nothing can be signed; retried on the schedule, loudly.
      this.logger.error({ err: error, endpoint: claimed.endpoint.id }, 'cannot decrypt the endpoint secret (WEBHOOK_SECRETS_KEY differs from the gateway?)');
      const message = 'signing secret unavailable';
      return { outcome: { kind: 'error', error: message }, statusCode: null, latencyMs: null, responseExcerpt: null, error: message };
    }
    const headers = signedWebhookHeaders({
      scheme: claimed.event.scheme,
      eventId: claimed.event.id,
      eventType: claimed.event.type,
      body: claimed.event.body,
      timestamp: Math.floor(Date.now() / 1000),
      secrets,
      userAgent: this.settings.userAgent,
    });
    return this.sender.send(claimed.endpoint.url, claimed.event.body, headers, claimed.endpoint.merchant_id);
  }

  private record(result: SendResult, attemptedAt: Date, step: NextStep): AttemptRecord {
    const next: AttemptRecord['next'] =
      step.action === 'succeeded'
        ? { status: 'succeeded' }
        : step.action === 'retry'
          ? { status: 'pending', nextAttemptAt: new Date(Date.now() + step.delayMs) }
          : { status: 'failed', reason: step.action === 'endpoint_gone' ? 'endpoint_gone' : 'attempts_exhausted' };
    return {
      attemptedAt,
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
      responseExcerpt: result.responseExcerpt,
      error: result.error,
      next,
    };
  }

  private async disable(manager: EntityManager, endpointId: string, reason: AutoDisableReason, replayFrom: Date, detail: Record<string, unknown>): Promise<void> {
    const endpoint = await this.endpoints.autoDisable(manager, endpointId, reason, replayFrom);
    if (!endpoint) return;
    await this.deliveries.failPending(manager, endpointId, reason === 'gone' ? 'endpoint_gone' : 'endpoint_failing');
    await this.endpoints.addDisabledNotification(manager, endpoint, reason, detail);
    await this.outbox.append(manager, this.settings.eventsTopic, [
      newEnvelope<EndpointAutoDisabled>({
        type: 'webhook_endpoint.auto_disabled',
        aggregate_id: endpoint.id,
        aggregate_type: 'webhook_endpoint',
        // The endpoint version it acted on: the gateway applies it only if the merchant changed nothing since.
        sequence: endpoint.sequence,
        merchant_id: endpoint.merchant_id,
        environment: endpoint.environment,
        correlation_id: String(detail.delivery_id ?? endpoint.id),
        occurred_at: endpoint.auto_disabled_at!,
        data: { reason, disabled_at: endpoint.auto_disabled_at!.toISOString() },
      }),
    ]);
    webhookEndpointsDisabled.inc({ reason });
    this.logger.warn({ endpoint: endpointId, merchant: endpoint.merchant_id, reason }, 'webhook endpoint disabled');
  }
}

function parseTraceContext(stored: string | null | undefined): Record<string, unknown> | undefined {
  if (!stored) return undefined;
  try {
    return JSON.parse(stored) as Record<string, unknown>;
  } catch {
    return undefined; // unreadable: the attempt is not traced
  }
}
