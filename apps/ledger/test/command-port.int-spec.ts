import { DEVELOPMENT_COMMAND_SECRET } from '@payments/config';
import { LEDGER_COMMANDS, LEDGER_SERVICE } from '@payments/contracts';
import { ApiError, commandPattern, CommandClient, encodeFrame, FrameDecoder, ServiceClient } from '@payments/platform';
import { startStack, uniqueName, type Stack } from '@payments/testing';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';

// The ledger's command port as anything on the network meets it: a peer without the deployment's COMMAND_SECRET
// runs nothing, and a caller with it still gets every command checked against its schema before a query is built.
describe('ledger command port', () => {
  const secret = randomBytes(32).toString('base64');
  let stack: Stack;
  const clients: CommandClient[] = [];

  beforeAll(async () => {
    stack = await startStack(['ledger'], { COMMAND_SECRET: secret });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await stack?.stop();
  });

  function ledger(secrets: string[]): ServiceClient {
    const client = new CommandClient({ upstreams: { [LEDGER_SERVICE]: [stack.services.ledger!.commandUrl!] }, secrets, connectTimeoutMs: 2000 });
    clients.push(client);
    return new ServiceClient(client, 10_000);
  }

  const list = (service: ServiceClient, body: Record<string, unknown>) =>
    service.request(commandPattern(LEDGER_SERVICE, LEDGER_COMMANDS.listBalanceTransactions), body, { correlationId: uniqueName('req') });
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => (error instanceof ApiError ? { code: error.code, param: error.param } : error),
    );

  /** How many list commands the ledger has handled (its own metric), whatever their outcome. */
  async function handledLists(): Promise<number> {
    const text = await (await fetch(`${stack.services.ledger!.opsUrl}/metrics`)).text();
    const lines = text.split('\n').filter((l) => /^command_handle_seconds_count\{[^}]*command="ledger\.balance-transactions\.list"/.test(l));
    return lines.reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
  }

  it("refuses a caller without the transport's secret before any command runs, and logs it without the secret", async () => {
    const scope = { merchant_id: 'acct_intruder', environment: 'test', limit: 10 };
    const before = await handledLists();
    // The development secret is not this deployment's: refused, a 503 to the caller, nothing handled.
    expect(await failure(list(ledger([DEVELOPMENT_COMMAND_SECRET]), scope))).toEqual({ code: 'service_unavailable', param: undefined });
    // A bare command frame, as a peer that knows the framing but not the handshake would send it.
    const { hostname, port } = new URL(stack.services.ledger!.commandUrl!);
    const socket = connect({ host: hostname, port: Number(port) });
    socket.on('error', () => undefined);
    const answers: string[] = [];
    const frames = new FrameDecoder(1 << 20, (_id, payload) => answers.push(payload!.toString('utf8')));
    socket.on('data', (chunk: Buffer) => frames.push(chunk));
    const pattern = commandPattern(LEDGER_SERVICE, LEDGER_COMMANDS.listBalanceTransactions);
    socket.write(encodeFrame(1, JSON.stringify({ pattern, command_id: 'c1', timeout_ms: 5000, correlation_id: 'r', body: scope })));
    await new Promise((resolve) => socket.once('close', resolve));
    expect(answers).toEqual([expect.stringContaining('"refused"')]);
    expect(await handledLists()).toBe(before);

    const output = stack.services.ledger!.output();
    expect(output).toContain('command connection refused');
    expect(output).not.toContain(secret);
    expect(output).not.toContain(DEVELOPMENT_COMMAND_SECRET);
    // The deployment's own secret works.
    expect(await list(ledger([secret]), scope)).toEqual({ object: 'list', data: [], has_more: false });
  });

  it.each([
    ['a negative limit', { limit: -1 }, 'limit'],
    ['a zero limit', { limit: 0 }, 'limit'],
    ['a limit over 100', { limit: 1000 }, 'limit'],
    ['a fractional limit', { limit: 1.5 }, 'limit'],
    ['SQL as the limit', { limit: '1 OR 1=1' }, 'limit'],
    ['no limit', { limit: undefined }, 'limit'],
    ['an unknown environment', { environment: 'staging' }, 'environment'],
    ['no merchant', { merchant_id: undefined }, 'merchant_id'],
    ['a cursor that is no transaction id', { starting_after: "txn_' OR '1'='1" }, 'starting_after'],
    ['an unknown type', { type: 'payout' }, 'type'],
    ['an unreadable date', { created_gte: 'yesterday' }, 'created[gte]'],
    ['both cursors', { starting_after: `txn_${'a'.repeat(24)}`, ending_before: `txn_${'b'.repeat(24)}` }, 'ending_before'],
  ])('refuses %s as the gateway would: 400 invalid_request naming the field, never a 500', async (_what, change, param) => {
    const body = { merchant_id: 'acct_someone', environment: 'test', limit: 10, ...change };
    expect(await failure(list(ledger([secret]), body))).toEqual({ code: 'invalid_request', param });
  });

  it('refuses a balance read with no scope', async () => {
    const read = ledger([secret]).request(commandPattern(LEDGER_SERVICE, LEDGER_COMMANDS.getBalance), { environment: 'test' }, { correlationId: 'r' });
    expect(await failure(read)).toEqual({ code: 'invalid_request', param: 'merchant_id' });
  });
});
