import { failureOutcome, LOCK_AFTER_FAILURES } from './lockout';

describe('failureOutcome', () => {
  it('counts failures below ten, locks at the tenth exactly once, and sees later ones as already locked', () => {
    expect(LOCK_AFTER_FAILURES).toBe(10);
    const outcomes = Array.from({ length: 12 }, (_, i) => failureOutcome(i + 1));
    expect(outcomes.slice(0, 9)).toEqual(Array(9).fill('counted'));
    expect(outcomes[9]).toBe('locked_now');
    expect(outcomes.slice(10)).toEqual(['already_locked', 'already_locked']);
  });
});
