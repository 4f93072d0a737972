import { ApiError } from '@payments/platform';

/** Events are kept this long for resends and replays (DESIGN §6). */
export const REPLAY_RETENTION_DAYS = 30;

/**
 * The [from, to) range of a replay as UTC ISO strings: from before to, from within the kept period and not
 * in the future. `to` may lie ahead (it then means "until now").
 */
export function replayWindow(from: string, to: string, now: Date = new Date()): { from: string; to: string } {
  const start = Date.parse(from);
  const end = Date.parse(to);
  if (Number.isNaN(start)) throw new ApiError('invalid_request', 'from is not a valid date and time.', 'from');
  if (Number.isNaN(end)) throw new ApiError('invalid_request', 'to is not a valid date and time.', 'to');
  if (start >= end) throw new ApiError('invalid_request', 'from must be before to.', 'from');
  if (start > now.getTime()) throw new ApiError('invalid_request', 'from must not be in the future.', 'from');
  if (start < now.getTime() - REPLAY_RETENTION_DAYS * 86_400_000) {
    throw new ApiError('invalid_request', `from must be within the last ${REPLAY_RETENTION_DAYS} days: older events are not kept.`, 'from');
  }
  return { from: new Date(start).toISOString(), to: new Date(end).toISOString() };
}
