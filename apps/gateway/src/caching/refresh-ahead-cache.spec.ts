import { RefreshAheadCache } from './refresh-ahead-cache';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A source whose answers the test releases by hand, counting the loads it was asked for. */
function source() {
  const pending: Array<{ key: string; resolve: (value: string) => void; reject: (error: Error) => void }> = [];
  let version = 0;
  return {
    loads: () => version,
    pending,
    load: (key: string) =>
      new Promise<string>((resolve, reject) => {
        version += 1;
        pending.push({ key, resolve, reject });
      }),
    answer(value: string) {
      pending.shift()!.resolve(value);
    },
    fail() {
      pending.shift()!.reject(new Error('source down'));
    },
  };
}

describe('RefreshAheadCache', () => {
  it('loads once for everyone asking together, then answers from the cache', async () => {
    const s = source();
    const cache = new RefreshAheadCache<string>({ refreshAfterMs: 1000, maxAgeMs: 2000, max: 10, load: s.load });
    const asked = Promise.all(Array.from({ length: 20 }, () => cache.get('a')));
    s.answer('v1');
    expect(await asked).toEqual(Array(20).fill('v1'));
    expect(await cache.get('a')).toBe('v1');
    expect(s.loads()).toBe(1);
  });

  it('after refreshAfterMs answers the kept value at once and reloads it in the background', async () => {
    const s = source();
    const cache = new RefreshAheadCache<string>({ refreshAfterMs: 30, maxAgeMs: 5000, max: 10, load: s.load });
    const first = cache.get('a');
    s.answer('v1');
    await first;
    await sleep(40);
    expect(await cache.get('a')).toBe('v1'); // not waiting for the reload
    expect(await cache.get('a')).toBe('v1'); // the reload under way is shared, not repeated
    expect(s.loads()).toBe(2);
    s.answer('v2');
    await sleep(0);
    expect(await cache.get('a')).toBe('v2');
  });

  it('never answers a value past maxAgeMs: the caller waits for a new load', async () => {
    const s = source();
    const cache = new RefreshAheadCache<string>({ refreshAfterMs: 10, maxAgeMs: 40, max: 10, load: s.load });
    const first = cache.get('a');
    s.answer('v1');
    await first;
    await sleep(60);
    let answered: string | undefined;
    const waiting = cache.get('a').then((value) => (answered = value));
    await sleep(10);
    expect(answered).toBeUndefined();
    s.answer('v2');
    await waiting;
    expect(answered).toBe('v2');
  });

  it('keeps no failed load, and a failed reload leaves the kept value until its maximum age', async () => {
    const s = source();
    const cache = new RefreshAheadCache<string>({ refreshAfterMs: 10, maxAgeMs: 5000, max: 10, load: s.load });
    const failing = cache.get('a');
    s.fail();
    await expect(failing).rejects.toThrow('source down');
    const second = cache.get('a');
    s.answer('v1');
    expect(await second).toBe('v1');
    await sleep(20);
    expect(await cache.get('a')).toBe('v1'); // starts a reload
    s.fail();
    await sleep(0);
    expect(await cache.get('a')).toBe('v1');
  });

  it('with refreshAfterMs 0 keeps nothing, but still shares a load under way', async () => {
    const s = source();
    const cache = new RefreshAheadCache<string>({ refreshAfterMs: 0, maxAgeMs: 1000, max: 10, load: s.load });
    const together = Promise.all([cache.get('a'), cache.get('a')]);
    s.answer('v1');
    expect(await together).toEqual(['v1', 'v1']);
    const again = cache.get('a');
    s.answer('v2');
    expect(await again).toBe('v2');
    expect(s.loads()).toBe(2);
  });

  it('keeps keys apart', async () => {
    const s = source();
    const cache = new RefreshAheadCache<string>({ refreshAfterMs: 1000, maxAgeMs: 2000, max: 10, load: s.load });
    const a = cache.get('a');
    const b = cache.get('b');
    expect(s.pending.map((p) => p.key)).toEqual(['a', 'b']);
    s.answer('for a');
    s.answer('for b');
    expect([await a, await b]).toEqual(['for a', 'for b']);
  });
});
