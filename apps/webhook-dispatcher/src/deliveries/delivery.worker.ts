import { Logger } from '@nestjs/common';
import { pgClientConfig } from '@payments/database';
import { backoffDelay, Wakeup } from '@payments/messaging';
import { Client } from 'pg';
import { LeaseBook } from '../domain/lease-book';
import type { WebhooksDatabase } from '../shared/webhooks-database';
import { webhookInFlight } from '../shared/webhooks-metrics';
import type { ClaimedDelivery, DeliveriesRepository } from './deliveries.repository';

export interface DeliveryWorkerOptions {
  /** Attempts in flight per endpoint in this instance. */
  perEndpoint: number;
  /** Attempts in flight per failing endpoint (its last attempt failed): default 1. */
  degradedPerEndpoint?: number;
  /** Share of maxInFlight that failing endpoints may hold together: default 1/4. */
  degradedShare?: number;
  /** Attempts in flight in this instance. */
  maxInFlight: number;
  /** Longest wait between two looks for due deliveries (retries come due without a notification). */
  pollIntervalMs: number;
  /** A claim's lease (WEBHOOK_LEASE_MS): renewed every quarter of it while its attempt runs. */
  leaseMs: number;
}

/**
 * How often held deliveries of endpoints that are healthy again are looked for (a recovery releases its own at
 * once; this catches those a crash or a race left held, which no claim takes): at the pace of the poll, so a crash
 * never strands them for longer than a poll or two. One index probe per endpoint with held deliveries.
 */
const RELEASE_INTERVAL_MS = 1000;

/**
 * The safety poll while no delivery is pending anywhere and the LISTEN connection is up: nothing can come due
 * until a delivery is created, and every creation notifies (first sends, resends, replays, test events,
 * catch-up). It only covers a notification lost on a connection that has not reported its loss.
 */
const QUIET_POLL_MS = 10_000;
/** Retries due within this long get a wake-up of their own (wakeForRetry). */
const RETRY_WAKE_HORIZON_MS = 60_000;
/** Past the due time, so the claim (Postgres' clock) finds the retry due. */
const RETRY_WAKE_MARGIN_MS = 5;
/**
 * How long after another instance's notification this one claims. The instance that made the deliveries claims
 * them at once; every other one claimed too, and found nothing nearly every time (a claim per notification per
 * instance). Within this span others still take what the maker left (its slots full, or it died before claiming),
 * one claim for all the notifications of the span.
 */
export const FOREIGN_WAKE_DELAY_MS = 100;

/** Runs one attempt; calls `sent` once the endpoint has answered (or the attempt ended without a request). */
export type AttemptRunner = (claimed: ClaimedDelivery, sent: () => void, retryAt: (at: Date) => void) => Promise<unknown>;

/**
 * Claims due deliveries and runs their attempts concurrently, within limits: WEBHOOK_MAX_IN_FLIGHT in all and
 * WEBHOOK_ENDPOINT_CONCURRENCY per endpoint, so an endpoint that hangs holds only its own slots while the others
 * keep flowing. An endpoint that is failing (no success since its last failure) gets one slot, and failing
 * endpoints together at most a quarter of the instance's, so even many dead endpoints leave room for the rest.
 * Every schedule lives in Postgres (next_attempt_at, lease), none in memory: a restart or a crash loses nothing, and
 * several instances share the work. Woken by NOTIFY when deliveries are created (at once when its own instance made
 * them, a moment later for another's) and when an attempt of its own frees a slot a due delivery may be waiting
 * for, and otherwise polls every WEBHOOK_POLL_INTERVAL_MS; while no delivery is pending anywhere it does not claim,
 * and looks only every QUIET_POLL_MS (an idle instance woke twice a second for queries that found nothing).
 *
 * A claim's lease is short (WEBHOOK_LEASE_MS, at most 2 s) and renewed every quarter of it, in one statement for
 * every attempt in flight, until the attempt is recorded: an attempt may run its whole 10 s timeout, while a dead
 * instance's claims are free within one lease of its last renewal and found by the others' next poll.
 */
export class DeliveryWorker {
  private readonly logger = new Logger('DeliveryWorker');
  private readonly wakeup = new Wakeup();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly perEndpoint = new Map<string, { count: number; degraded: boolean }>();
  private readonly degradedPerEndpoint: number;
  private readonly degradedCap: number;
  private stopping = false;
  /** A claim is on its way: it counted every slot busy as of when it was sent. */
  private claiming = false;
  private loop?: Promise<void>;
  private listener?: Client;
  /** LISTEN is in place on `listener`: a delivery created anywhere wakes this worker. */
  private listening = false;
  /** Something asked for a look since the loop last checked (a notification, a freed slot, a retry due). */
  private signalled = true;
  private listenRetry?: NodeJS.Timeout;
  /** Wake-ups armed for retries due before the poll would find them late (see wakeForRetry). */
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  /** The claim another instance's notifications asked for (see FOREIGN_WAKE_DELAY_MS). */
  private foreignWake?: NodeJS.Timeout;
  /** Leases of the attempts in flight, and the renewal that keeps them. */
  private readonly leases: LeaseBook;
  private renewalTimer?: NodeJS.Timeout;
  private renewing?: Promise<void>;

  constructor(
    private readonly db: WebhooksDatabase,
    private readonly deliveries: DeliveriesRepository,
    private readonly runAttempt: AttemptRunner,
    private readonly options: DeliveryWorkerOptions,
  ) {
    this.degradedPerEndpoint = Math.min(options.degradedPerEndpoint ?? 1, options.perEndpoint);
    this.degradedCap = Math.max(1, Math.floor(options.maxInFlight * (options.degradedShare ?? 0.25)));
    this.leases = new LeaseBook(options.leaseMs);
  }

  start(): void {
    if (this.loop) return;
    void this.listen();
    this.loop = this.run();
  }

  /** Stops claiming and waits for the attempts in flight (each bounded by the attempt timeout), renewing their leases. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.listenRetry);
    clearTimeout(this.foreignWake);
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.wake();
    await this.loop;
    await Promise.all(this.inFlight.values());
    clearInterval(this.renewalTimer);
    await this.renewing;
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch((error: unknown) => this.logger.warn({ err: error }, 'closing the LISTEN connection failed'));
  }

  /** Wakes the loop (tests and callers that just scheduled work in this process). */
  poke(): void {
    this.wake();
  }

  private wake(): void {
    this.signalled = true;
    this.wakeup.notify();
  }

  stats(): { inFlight: number; endpoints: number } {
    return { inFlight: this.inFlight.size, endpoints: this.perEndpoint.size };
  }

  private async run(): Promise<void> {
    let failures = 0;
    let releasedAt = 0;
    while (!this.stopping) {
      try {
        const signalled = this.signalled;
        this.signalled = false;
        let pending = true;
        if (Date.now() - releasedAt >= RELEASE_INTERVAL_MS) {
          ({ pending } = await this.deliveries.releaseRecoveredAndLook());
          releasedAt = Date.now();
        }
        // Nothing pending anywhere, nothing in flight here, no one asked: a claim would find nothing, and a
        // delivery created from now on notifies (a notification during this pass ends the wait at once).
        const quiet = !pending && !signalled && this.inFlight.size === 0 && this.listening;
        const free = this.options.maxInFlight - this.inFlight.size;
        if (free > 0 && !quiet) {
          const busy = new Map<string, number>();
          let degradedInFlight = 0;
          for (const [endpointId, { count, degraded }] of this.perEndpoint) {
            busy.set(endpointId, (degraded ? this.degradedPerEndpoint : this.options.perEndpoint) - count);
            if (degraded) degradedInFlight += count;
          }
          // The lease runs from no earlier than this (Postgres sets it once the claim arrives).
          const claimSentAt = Date.now();
          this.claiming = true;
          let claimed: ClaimedDelivery[];
          try {
            claimed = await this.deliveries.claim({
              limit: free,
              perEndpoint: this.options.perEndpoint,
              degradedPerEndpoint: this.degradedPerEndpoint,
              degradedFree: this.degradedCap - degradedInFlight,
              busy,
              leaseMs: this.options.leaseMs,
            });
            for (const delivery of claimed) this.launch(delivery, claimSentAt);
          } finally {
            this.claiming = false;
          }
          failures = 0;
          // Every free slot filled: more may be due right away.
          if (claimed.length > 0 && claimed.length === free) continue;
        }
        // Quiet, the next pass is the release and look again (due by then).
        await this.wakeup.wait(quiet ? QUIET_POLL_MS : this.options.pollIntervalMs);
      } catch (error) {
        failures += 1;
        const delayMs = backoffDelay(failures, 200, 10_000);
        this.logger.error({ err: error, failures, retryInMs: delayMs }, 'claiming deliveries failed; retrying');
        await this.wakeup.wait(delayMs);
      }
    }
  }

  private launch(delivery: ClaimedDelivery, claimSentAt: number): void {
    const endpointId = delivery.endpoint.id;
    this.leases.add(delivery.id, delivery.leaseToken, claimSentAt);
    // Renewals tick only while attempts are in flight.
    this.renewalTimer ??= setInterval(() => this.renewLeases(), this.leases.renewEveryMs);
    const slot = this.perEndpoint.get(endpointId) ?? { count: 0, degraded: false };
    // The latest claim tells whether the endpoint is failing now.
    this.perEndpoint.set(endpointId, { count: slot.count + 1, degraded: delivery.degraded });
    webhookInFlight.inc();
    // The endpoint's slot limits requests to it: it is free again once the endpoint answered, while the attempt
    // is still being recorded (the delivery stays leased meanwhile, so it is not claimed twice).
    let slotHeld = true;
    const freeSlot = () => {
      if (!slotHeld) return;
      slotHeld = false;
      const current = this.perEndpoint.get(endpointId);
      const mayBeWaiting = this.claiming || (current !== undefined && this.heldBackBy(current));
      if (!current || current.count <= 1) this.perEndpoint.delete(endpointId);
      else this.perEndpoint.set(endpointId, { ...current, count: current.count - 1 });
      if (mayBeWaiting) this.wake();
    };
    const running = this.runAttempt(delivery, freeSlot, (at) => this.wakeForRetry(at))
      .then(
        () => undefined,
        (error: unknown) =>
          // The lease runs out and the delivery is claimed again: at worst one more attempt, never a lost one.
          this.logger.error({ err: error, delivery: delivery.id }, 'delivery attempt failed to complete; it is retried after its lease'),
      )
      .finally(() => {
        // Its lease is no longer renewed: it ends within WEBHOOK_LEASE_MS if the attempt was not recorded.
        this.leases.remove(delivery.id);
        // Claiming again is worth it when this frees something: the endpoint's slot (if `sent` was not called
        // and a due delivery may wait for it) or the instance's last one. Every needless claim is a query, and
        // claims run one after another.
        const wasFull = this.inFlight.size >= this.options.maxInFlight;
        this.inFlight.delete(delivery.id);
        webhookInFlight.dec();
        if (this.inFlight.size === 0 && !this.stopping) {
          clearInterval(this.renewalTimer);
          this.renewalTimer = undefined;
        }
        freeSlot();
        if (wasFull) this.wake();
      });
    this.inFlight.set(delivery.id, running);
  }

  /**
   * Whether a claim may have left a due delivery behind for want of this endpoint's slot: only when the endpoint
   * was at its limit, or it is failing and failing endpoints held their whole share (a claim takes every due
   * delivery otherwise, and one created later notifies). Freeing any other slot claims nothing: it cost a query
   * for every answered delivery, half the dispatcher's claims. (A slot freed while a claim is on its way always
   * claims again: that claim counted it busy.)
   */
  private heldBackBy(slot: { count: number; degraded: boolean }): boolean {
    if (slot.count >= (slot.degraded ? this.degradedPerEndpoint : this.options.perEndpoint)) return true;
    if (!slot.degraded) return false;
    let degradedInFlight = 0;
    for (const { count, degraded } of this.perEndpoint.values()) if (degraded) degradedInFlight += count;
    return degradedInFlight >= this.degradedCap;
  }

  /**
   * One renewal tick: the leases of attempts in flight that were set half a tick ago or more, in one statement. A
   * tick is skipped while the previous renewal is still running; a failed one is retried at the next tick (the
   * leases are still old), and leases it let lapse are named in the log, since another instance may send those too.
   */
  private renewLeases(): void {
    if (this.renewing) return;
    const sentAt = Date.now();
    const { ids, tokens } = this.leases.due(sentAt);
    if (ids.length === 0) return;
    this.renewing = this.deliveries
      .renewLeases(ids, tokens, this.options.leaseMs)
      .then(
        (renewed) => this.leases.renewed(renewed, sentAt),
        (error: unknown) => {
          const lapsed = this.leases.lapsed(Date.now());
          this.logger.warn({ err: error, leases: ids.length, lapsed }, 'renewing delivery leases failed; retrying at the next tick');
        },
      )
      .finally(() => (this.renewing = undefined));
  }

  /**
   * Retries come due without a notification, and the poll would find one up to a poll interval late: the first
   * retry (5 s ±10 %, DESIGN §5) went out after 6 s. The instance that recorded a retry due within a minute (the
   * first, or a short Retry-After) looks for it when it is due; a poll interval is within the jitter of later
   * ones (5 min and more), and any instance finds them.
   */
  private wakeForRetry(at: Date): void {
    const delayMs = at.getTime() - Date.now();
    if (this.stopping || delayMs > RETRY_WAKE_HORIZON_MS) return;
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      this.wake();
    }, Math.max(0, delayMs) + RETRY_WAKE_MARGIN_MS);
    timer.unref();
    this.retryTimers.add(timer);
  }

  /** A notification: its own (or one that names no instance) claims now, another instance's a moment later. */
  private notified(notifier: string | undefined): void {
    if (!notifier || notifier === this.db.notifier) return this.wake();
    if (this.foreignWake || this.stopping) return;
    this.foreignWake = setTimeout(() => {
      this.foreignWake = undefined;
      this.wake();
    }, FOREIGN_WAKE_DELAY_MS);
  }

  /** LISTEN on the deliveries channel; reconnects after a lost connection (the poll covers the gap). */
  private async listen(): Promise<void> {
    if (this.stopping) return;
    const client = new Client(pgClientConfig(this.db.dataSource, 'webhook-worker'));
    const retry = (error: unknown) => {
      if (this.listener !== client && this.listener !== undefined) return;
      this.listener = undefined;
      this.listening = false;
      if (this.stopping) return;
      this.logger.warn({ err: error }, 'deliveries LISTEN connection lost; reconnecting (polling meanwhile)');
      client.end().catch((endError: unknown) => this.logger.debug({ err: endError }, 'closing a broken LISTEN connection failed'));
      this.listenRetry = setTimeout(() => void this.listen(), 1000);
    };
    client.on('error', retry);
    // A connection closed without an error is lost too: until LISTEN is back, the worker polls.
    client.on('end', () => {
      if (this.listener === client) retry(new Error('LISTEN connection ended'));
    });
    client.on('notification', ({ payload }) => this.notified(payload));
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN "${this.db.deliveriesChannel}"`);
      if (this.listener === client) this.listening = true;
      // Anything created while not listening is found by this look.
      this.wake();
    } catch (error) {
      retry(error);
    }
  }
}
