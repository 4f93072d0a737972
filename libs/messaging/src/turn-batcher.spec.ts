import { TurnBatcher } from './turn-batcher';

describe('TurnBatcher', () => {
  it('runs what one turn submits together, and what arrives during a run in the next one, one run at a time', async () => {
    const runs: number[][] = [];
    let inRun = 0;
    let mostAtOnce = 0;
    let release: () => void = () => undefined;
    const batcher = new TurnBatcher<number, number>(async (items) => {
      runs.push(items);
      inRun += 1;
      mostAtOnce = Math.max(mostAtOnce, inRun);
      if (runs.length === 1) await new Promise<void>((resolve) => (release = resolve));
      inRun -= 1;
      return items.map((n) => n * 10);
    });
    const first = [1, 2, 3].map((n) => batcher.submit(n));
    await new Promise((resolve) => setImmediate(resolve));
    // The first run is in progress: these wait for it, then go together.
    const second = [4, 5].map((n) => batcher.submit(n));
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toEqual([[1, 2, 3]]);
    release();
    expect(await Promise.all([...first, ...second])).toEqual([10, 20, 30, 40, 50]);
    expect(runs).toEqual([[1, 2, 3], [4, 5]]);
    expect(mostAtOnce).toBe(1);
  });

  it("fails every item of a run that throws, and keeps serving later ones", async () => {
    let fail = true;
    const batcher = new TurnBatcher<string, string>(async (items) => {
      if (fail) throw new Error('database gone');
      return items.map((s) => s.toUpperCase());
    });
    const failed = await Promise.allSettled([batcher.submit('a'), batcher.submit('b')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await batcher.submit('c')).toBe('C');
  });

  it('gives each run as many of the oldest waiting items as `take` says, and the rest to the runs after it', async () => {
    const runs: number[][] = [];
    const batcher = new TurnBatcher<number, number>(
      async (items) => {
        runs.push(items);
        return items;
      },
      (waiting) => (waiting.length >= 4 ? 4 : 1),
    );
    expect(await Promise.all([1, 2, 3, 4, 5, 6].map((n) => batcher.submit(n)))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(runs).toEqual([[1, 2, 3, 4], [5], [6]]);
  });

  it('fails the run when it answers a result count other than its item count', async () => {
    const batcher = new TurnBatcher<number, number>(async () => [1]);
    await expect(Promise.all([batcher.submit(1), batcher.submit(2)])).rejects.toThrow('batch of 2 answered 1 results');
  });
});
