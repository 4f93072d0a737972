/** Consecutive failed sign-ins (wrong password or wrong second factor) that lock a user until unlocked by e-mail. */
export const LOCK_AFTER_FAILURES = 10;

/**
 * What a failure did, from the count an atomic increment returned: exactly one attempt sees the threshold (the
 * one that locks, and mails the unlock link); attempts racing past it see the user already locked.
 */
export function failureOutcome(failedLogins: number): 'counted' | 'locked_now' | 'already_locked' {
  if (failedLogins < LOCK_AFTER_FAILURES) return 'counted';
  return failedLogins === LOCK_AFTER_FAILURES ? 'locked_now' : 'already_locked';
}
