// When a delivery is tried again, and what one attempt's outcome means (DESIGN §6).

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delays after attempt 1, 2, ...: 10 retries over about 3.6 days, 11 attempts in all. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
];

/** Spread of each delay, so retries of many deliveries do not arrive at an endpoint in lockstep. */
export const RETRY_JITTER = 0.1;

/** Longest `Retry-After` we wait for. */
export const MAX_RETRY_AFTER_MS = 24 * HOUR;

/** Attempts a delivery gets before it is marked failed. */
export function maxAttempts(schedule: readonly number[] = DEFAULT_RETRY_SCHEDULE_MS): number {
  return schedule.length + 1;
}

/**
 * Delay before the next attempt after `attemptsMade` attempts failed, with ±10% jitter; null when the schedule is
 * used up. `random` returns [0, 1).
 */
export function retryDelayMs(attemptsMade: number, schedule: readonly number[] = DEFAULT_RETRY_SCHEDULE_MS, random: () => number = Math.random): number | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) throw new RangeError(`attemptsMade must be >= 1, got ${attemptsMade}`);
  const base = schedule[attemptsMade - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random()));
}

/** A `Retry-After` value (delta seconds or an HTTP date) in ms from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined | null, now: Date): number | null {
  if (value === undefined || value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * SECOND;
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[a-z]/i.test(text)) return null;
  return Math.max(0, at - now.getTime());
}

/** What came back from one attempt. */
export type AttemptOutcome =
  | { kind: 'response'; status: number; retryAfter?: string | null }
  | { kind: 'error'; error: string };

export type NextStep =
  | { action: 'succeeded' }
  /** 410 Gone: the endpoint is disabled at once and the delivery ends. */
  | { action: 'endpoint_gone' }
  | { action: 'retry'; delayMs: number }
  | { action: 'failed' };

export interface NextStepOptions {
  schedule?: readonly number[];
  random?: () => number;
  now: Date;
}

/**
 * Any 2xx acknowledges; 3xx (redirects are not followed), 4xx, 5xx and network errors are failures that are
 * retried on the schedule; a `Retry-After` on 429/503 is honoured: the next attempt is not earlier than it asks
 * (up to 24 h), nor earlier than the schedule says. After the last attempt the delivery has failed.
 */
export function nextStep(outcome: AttemptOutcome, attemptsMade: number, options: NextStepOptions): NextStep {
  if (outcome.kind === 'response') {
    if (outcome.status >= 200 && outcome.status < 300) return { action: 'succeeded' };
    if (outcome.status === 410) return { action: 'endpoint_gone' };
  }
  const scheduled = retryDelayMs(attemptsMade, options.schedule, options.random);
  if (scheduled === null) return { action: 'failed' };
  if (outcome.kind === 'response' && (outcome.status === 429 || outcome.status === 503)) {
    const asked = parseRetryAfter(outcome.retryAfter, options.now);
    if (asked !== null) return { action: 'retry', delayMs: Math.max(scheduled, Math.min(asked, MAX_RETRY_AFTER_MS)) };
  }
  return { action: 'retry', delayMs: scheduled };
}

/** An endpoint whose deliveries have failed without a success for this long is disabled (DESIGN: 5 days). */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * HOUR;

export function failingTooLong(failingSince: Date | null, now: Date, thresholdMs = DISABLE_AFTER_FAILING_MS): boolean {
  return failingSince !== null && now.getTime() - failingSince.getTime() >= thresholdMs;
}
