import { backoffDelay, sleep, Wakeup } from './wakeup';

describe('backoffDelay', () => {
  it('doubles from the initial delay up to the cap, with jitter in the upper half', () => {
    for (let i = 0; i < 200; i += 1) {
      expect(backoffDelay(1, 100, 5000)).toBeGreaterThanOrEqual(50);
      expect(backoffDelay(1, 100, 5000)).toBeLessThanOrEqual(100);
      expect(backoffDelay(3, 100, 5000)).toBeGreaterThanOrEqual(200);
      expect(backoffDelay(3, 100, 5000)).toBeLessThanOrEqual(400);
      expect(backoffDelay(20, 100, 5000)).toBeLessThanOrEqual(5000);
      expect(backoffDelay(20, 100, 5000)).toBeGreaterThanOrEqual(2500);
    }
  });
});

describe('Wakeup', () => {
  it('remembers a notify that came while nobody waited', async () => {
    const wakeup = new Wakeup();
    wakeup.notify();
    let woke = false;
    void wakeup.wait(60_000).then(() => (woke = true));
    await Promise.resolve();
    await Promise.resolve();
    expect(woke).toBe(true);
  });

  it('ends a wait early on notify, and tells a notify from a timeout', async () => {
    const wakeup = new Wakeup();
    const waiting = wakeup.wait(60_000);
    wakeup.notify();
    await expect(waiting).resolves.toBe(true);
    wakeup.notify();
    await expect(wakeup.wait(60_000)).resolves.toBe(true);
    await expect(wakeup.wait(5)).resolves.toBe(false);
  });
});

describe('sleep', () => {
  it('ends early when the signal aborts', async () => {
    const controller = new AbortController();
    const sleeping = sleep(60_000, controller.signal);
    controller.abort();
    await expect(sleeping).resolves.toBeUndefined();
  });
});
