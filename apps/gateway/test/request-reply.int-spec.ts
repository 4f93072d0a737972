import { createTestDatabase, freePort, RunningService, startService, uniqueName } from '@payments/testing';

// Gateway -> service request/reply over Kafka, and the 503 when the service does not answer.
describe('gateway request/reply', () => {
  const namespace = uniqueName('rr');
  const timeoutMs = 1500;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let sessions: RunningService | undefined;
  let gateway: RunningService | undefined;

  beforeAll(async () => {
    db = await createTestDatabase('rr');
    const common = { DATABASE_URL: db.url, KAFKA_NAMESPACE: namespace };
    sessions = await startService('sessions', { ...common, PORT: String(await freePort()) });
    gateway = await startService('gateway', {
      ...common,
      PORT: String(await freePort()),
      REQUEST_TIMEOUT_MS: String(timeoutMs),
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    await sessions?.stop();
    await db?.drop();
  });

  it('answers with the service reply', async () => {
    const res = await fetch(`${gateway!.url}/internal/services/sessions/ping`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ service: 'sessions' });
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    // Both sides time the command, so a slow request can be split into transit and handling.
    const gatewayMetrics = await (await fetch(`${gateway!.url}/metrics`)).text();
    expect(gatewayMetrics).toMatch(/rpc_round_trip_seconds_count\{[^}]*sessions\.commands\.ping[^}]*\} [1-9]/);
    const sessionsMetrics = await (await fetch(`${sessions!.url}/metrics`)).text();
    expect(sessionsMetrics).toMatch(/command_handle_seconds_count\{[^}]*sessions\.commands\.ping[^}]*\} [1-9]/);
  });

  it('answers 503 service_unavailable in the Error shape when the service is stopped', async () => {
    expect(await sessions!.stop()).toBe(0);
    sessions = undefined;
    const started = Date.now();
    const res = await fetch(`${gateway!.url}/internal/services/sessions/ping`, { headers: { 'Request-Id': 'req_test_503_check' } });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toEqual({
      error: { code: 'service_unavailable', message: expect.any(String), request_id: 'req_test_503_check' },
    });
    // Bounded by the gateway's own timeout, not left hanging (generous margin: this is not a speed check).
    expect(elapsed).toBeGreaterThanOrEqual(timeoutMs - 50);
    expect(elapsed).toBeLessThan(timeoutMs + 10000);
  });

  it('answers 404 in the Error shape for an unknown service and an unknown route', async () => {
    const unknownService = await fetch(`${gateway!.url}/internal/services/nope/ping`);
    expect(unknownService.status).toBe(404);
    expect(((await unknownService.json()) as { error: { code: string } }).error.code).toBe('not_found');
    const unknownRoute = await fetch(`${gateway!.url}/api/v1/nothing-here`);
    expect(unknownRoute.status).toBe(404);
    expect(((await unknownRoute.json()) as { error: unknown }).error).toMatchObject({ code: 'not_found', request_id: expect.any(String) });
  });
});
