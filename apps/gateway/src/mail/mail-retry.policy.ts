/** Shortest and longest wait between two attempts at one message. */
const MIN_DELAY_MS = 100;
const MAX_DELAY_MS = 86400_000;

/** MAIL_RETRY_DELAYS_MS as waits: comma-separated milliseconds, the last one repeating. */
export function parseRetryDelays(setting: string): number[] {
  const parts = setting.split(',').map((part) => part.trim());
  if (parts.length === 0 || parts.some((part) => !/^\d{1,9}$/.test(part))) throw new Error('not a comma-separated list of whole milliseconds');
  const delays = parts.map(Number);
  if (delays.some((delay) => delay < MIN_DELAY_MS || delay > MAX_DELAY_MS)) throw new Error(`a wait outside ${MIN_DELAY_MS} to ${MAX_DELAY_MS} ms`);
  return delays;
}

export type MailRetryStep = { action: 'retry'; at: Date } | { action: 'give_up' };

/**
 * What follows a failed attempt: the next try after the wait for this many failures (the last wait repeating), or
 * giving up when that try would fall past the message's deadline (written + giveUpAfterMs), or the server refused
 * the recipient for good (a 5xx answer to it): another try cannot change that.
 */
export function nextMailAttempt(
  failures: number,
  createdAt: Date,
  now: Date,
  policy: { delaysMs: readonly number[]; giveUpAfterMs: number },
  permanent = false,
): MailRetryStep {
  if (permanent) return { action: 'give_up' };
  const delay = policy.delaysMs[Math.min(failures, policy.delaysMs.length) - 1] ?? policy.delaysMs[0]!;
  const at = new Date(now.getTime() + delay);
  if (at.getTime() > createdAt.getTime() + policy.giveUpAfterMs) return { action: 'give_up' };
  return { action: 'retry', at };
}
