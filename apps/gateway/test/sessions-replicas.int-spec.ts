import { freePort, startService, startStack, uniqueName, type ApiResponse, type RunningService, type Stack, type TestMerchant } from '@payments/testing';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Every owner runs as two or more instances; losing one (killed, or stopped and answering nothing) must cost the
// merchant no failed call, and losing the only one must cost no more than a retry with the same Idempotency-Key.
describe('sessions replicas behind the gateway', () => {
  let stack: Stack;
  let merchant: TestMerchant;
  let a: RunningService;
  let b: RunningService;

  beforeAll(async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    stack = await startStack(
      ['sessions', 'gateway'],
      {},
      {
        sessions: { COMMAND_PORT: String(portA), INSTANCE_ID: 'a' },
        gateway: { SESSIONS_URL: `tcp://127.0.0.1:${portA},tcp://127.0.0.1:${portB}` },
      },
    );
    a = stack.services.sessions!;
    b = await startService('sessions', { ...a.env, PORT: String(await freePort()), OPS_PORT: String(await freePort()), COMMAND_PORT: String(portB), INSTANCE_ID: 'b' });
    merchant = await stack.createMerchant({ testLimit: 10000 });
  }, 180_000);

  afterAll(async () => {
    b?.process.kill('SIGCONT');
    await b?.stop();
    await stack?.stop();
  });

  const restart = (instance: RunningService) => startService('sessions', instance.env);

  /** Creates an instance has handled, from its metrics. */
  async function createsHandled(instance: RunningService): Promise<number> {
    const metrics = await (await fetch(`${instance.opsUrl}/metrics`)).text();
    const line = metrics.split('\n').find((l) => l.startsWith('command_handle_seconds_count{') && l.includes('command="sessions.payment-intents.create"') && l.includes('outcome="ok"'));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  }

  const create = (key: string, gatewayUrl = stack.gatewayUrl): Promise<ApiResponse> =>
    fetch(`${gatewayUrl}/api/v1/payment-intents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${merchant.test_key}`, 'content-type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify({ amount: '10.00', currency: 'USD' }),
    }).then(async (res) => ({ status: res.status, headers: res.headers, body: await res.json() }));

  /** Creates with fresh keys, `concurrency` at a time, until `until` resolves; each key with its first answer. */
  async function flow(until: Promise<unknown>, concurrency = 4, gatewayUrl = stack.gatewayUrl): Promise<Map<string, ApiResponse>> {
    const answers = new Map<string, ApiResponse>();
    let done = false;
    void until.finally(() => (done = true));
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (!done) {
          const key = uniqueName('replica');
          answers.set(key, await create(key, gatewayUrl));
        }
      }),
    );
    return answers;
  }

  /** The intent each key made in sessions (exactly one claim per key, and no intent without a claim). */
  async function intentsOf(keys: string[]): Promise<Map<string, string[]>> {
    const db = await stack.db.dataSource('sessions');
    const rows = (await db.query(
      `SELECT k.key, pi.id FROM sessions.idempotency_keys k JOIN sessions.payment_intents pi ON pi.id = k.object_id
        WHERE k.merchant_id = $1 AND k.key = ANY($2)`,
      [merchant.merchant_id, keys],
    )) as Array<{ key: string; id: string }>;
    const byKey = new Map<string, string[]>(keys.map((key) => [key, []]));
    for (const row of rows) byKey.get(row.key)!.push(row.id);
    return byKey;
  }

  async function intentCount(): Promise<number> {
    const db = await stack.db.dataSource('sessions');
    return ((await db.query(`SELECT count(*)::int AS n FROM sessions.payment_intents WHERE merchant_id = $1`, [merchant.merchant_id])) as Array<{ n: number }>)[0]!.n;
  }

  it('kills one of two instances mid-command: every create in flight succeeds, one intent per key', async () => {
    const before = await intentCount();
    const answers = await flow(
      (async () => {
        await sleep(500);
        await b.kill();
        await sleep(1500);
      })(),
    );
    expect(answers.size).toBeGreaterThan(8);
    const statuses = [...answers.values()].map((answer) => answer.status);
    expect(statuses.filter((status) => status !== 201)).toEqual([]);
    const intents = await intentsOf([...answers.keys()]);
    for (const [key, answer] of answers) expect(intents.get(key)).toEqual([answer.body.id]);
    expect(await intentCount()).toBe(before + answers.size);
    b = await restart(b);
  });

  it('one of two instances stopped (SIGSTOP): no 503, and it takes commands again once continued', async () => {
    const before = await intentCount();
    // Both instances take commands before the stop.
    const warm = await flow(sleep(300));
    let answers: Map<string, ApiResponse>;
    try {
      b.process.kill('SIGSTOP');
      answers = await flow(sleep(3000));
    } finally {
      b.process.kill('SIGCONT');
    }
    const statuses = [...answers.values()].map((answer) => answer.status);
    expect(statuses.filter((status) => status !== 201)).toEqual([]);
    expect(answers.size).toBeGreaterThan(8);

    // Continued, it handles what it read while stopped (the same command ids: no second intent), then its share.
    const handledByB = await createsHandled(b);
    const after = await flow(sleep(1500));
    expect(await createsHandled(b)).toBeGreaterThan(handledByB);
    const all = new Map([...warm, ...answers, ...after]);
    const intents = await intentsOf([...all.keys()]);
    for (const [key, answer] of all) expect(intents.get(key)).toEqual([answer.body.id]);
    expect(await intentCount()).toBe(before + all.size);
  });

  it('kills the only instance mid-command: the merchant retries with the same keys, each succeeds once the restarted instance is ready, one intent per key', async () => {
    // A gateway that knows one instance only.
    const alone = await startService('gateway', { ...stack.services.gateway!.env, PORT: String(await freePort()), OPS_PORT: String(await freePort()), SESSIONS_URL: a.commandUrl! });
    try {
      const keys = Array.from({ length: 12 }, () => uniqueName('only'));
      const first = new Map<string, ApiResponse>();
      const inFlight = keys.map(async (key) => first.set(key, await create(key, alone.url)));
      await sleep(30);
      await a.kill();
      await Promise.all(inFlight);
      for (const answer of first.values()) expect([201, 503]).toContain(answer.status);

      let readyAt = 0;
      const restarted = restart(a).then((instance) => {
        readyAt = Date.now();
        a = instance;
        stack.services.sessions = instance;
      });
      // Each key retried until it succeeds, as a merchant does after a 503.
      const retried = await Promise.all(
        keys.map(async (key) => {
          for (;;) {
            const answer = await create(key, alone.url);
            if (answer.status === 201) return { key, answer, at: Date.now() };
            expect(answer.status).toBe(503);
            await sleep(100);
          }
        }),
      );
      await restarted;
      const intents = await intentsOf(keys);
      for (const { key, answer, at } of retried) {
        expect(intents.get(key)).toEqual([answer.body.id]);
        if (first.get(key)!.status === 201) expect(answer.body.id).toBe(first.get(key)!.body.id);
        // The bound the operators are promised: within 2 s of the restarted instance being ready.
        expect(at - readyAt).toBeLessThan(2000);
      }
    } finally {
      await alone.stop();
    }
  });
});
