import { Logger } from '@nestjs/common';
import { context, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { startInMemoryTracing, type InMemoryTracing } from '@payments/testing';
import { tracer } from '@payments/tracing';
import { once } from 'node:events';
import { connect, type AddressInfo, type Server as NetServer } from 'node:net';
import { firstValueFrom } from 'rxjs';
import { CommandSecret, HANDSHAKE_EXCHANGE_ID, newNonce } from './command-auth';
import { CommandClient } from './command.client';
import { encodeFrame, FrameDecoder, type CommandFrame } from './command-frames';
import { CommandServer } from './command.server';
import type { RpcReply, RpcRequest } from './rpc-message';

const SECRET = 'a-command-secret-of-this-test-0123456789';

// The trace context in the command frame: the owner's span is a child of the caller's. Only recorded traces travel:
// a command sent outside one carries no context, and a frame without it (or with an unreadable one) is answered
// without any span, so unsampled work costs no tracing.
describe('trace context over the command transport', () => {
  let tracing: InMemoryTracing;
  let server: CommandServer;
  let port: number;
  /** The span active in the handler, per command id. */
  const activeInHandler = new Map<string, string | undefined>();

  beforeAll(async () => {
    Logger.overrideLogger(false);
    tracing = startInMemoryTracing();
    server = new CommandServer({ port: 0, host: '127.0.0.1', secrets: [SECRET] });
    server.addHandler('svc.echo', async (request: RpcRequest) => {
      activeInHandler.set(request.command_id, trace.getSpan(context.active())?.spanContext().spanId);
      return { ok: true, data: request.body } satisfies RpcReply;
    });
    await new Promise<void>((resolve, reject) => server.listen((error) => (error ? reject(error) : resolve())));
    port = (server.unwrap<NetServer>().address() as AddressInfo).port;
  });

  afterAll(async () => {
    await server.close();
    await tracing.stop();
  });

  beforeEach(() => tracing.reset());

  it("a command sent within a span: the client's span is its child, the owner's span the client's, and the handler runs in it", async () => {
    const client = new CommandClient({ upstreams: { svc: [`tcp://127.0.0.1:${port}`] }, secrets: [SECRET] });
    const parent = tracer().startSpan('request');
    const reply = await context.with(trace.setSpan(ROOT_CONTEXT, parent), () =>
      firstValueFrom(client.send('svc.echo', { command_id: 'c1', deadline: Date.now() + 5000, correlation_id: 'r1', body: { a: 1 }, retryable: true })),
    );
    parent.end();
    await client.close();
    expect(reply).toEqual({ ok: true, data: { a: 1 } });

    const spans = tracing.spans().filter((s) => s.name === 'svc.echo');
    const caller = spans.find((s) => s.kind === SpanKind.CLIENT)!;
    const owner = spans.find((s) => s.kind === SpanKind.SERVER)!;
    expect(caller.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(owner.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
    expect(owner.spanContext().traceId).toBe(parent.spanContext().traceId);
    expect(activeInHandler.get('c1')).toBe(owner.spanContext().spanId);
  });

  it('a command sent outside a recorded span carries no context, and neither side makes a span', async () => {
    const client = new CommandClient({ upstreams: { svc: [`tcp://127.0.0.1:${port}`] }, secrets: [SECRET] });
    const reply = await firstValueFrom(client.send('svc.echo', { command_id: 'c0', deadline: Date.now() + 5000, correlation_id: 'r0', body: { z: 0 }, retryable: true }));
    await client.close();
    expect(reply).toEqual({ ok: true, data: { z: 0 } });
    expect(tracing.spans()).toEqual([]);
    expect(activeInHandler.get('c0')).toBeUndefined();
  });

  it('a frame without trace context is answered, with no span', async () => {
    const frame: CommandFrame = { pattern: 'svc.echo', command_id: 'c2', timeout_ms: 5000, correlation_id: 'r2', body: { b: 2 } };
    const answer = await sendRaw(port, frame);
    expect(answer).toEqual({ status: 200, reply: { ok: true, data: { b: 2 } } });
    expect(tracing.spans()).toEqual([]);
    expect(activeInHandler.get('c2')).toBeUndefined();
  });

  it('an unreadable traceparent is ignored, not refused', async () => {
    const frame: CommandFrame = { pattern: 'svc.echo', command_id: 'c3', timeout_ms: 5000, correlation_id: 'r3', body: {}, traceparent: 'not-a-traceparent' };
    expect(await sendRaw(port, frame)).toEqual({ status: 200, reply: { ok: true, data: {} } });
    expect(tracing.spans()).toEqual([]);
  });
});

/** One command over a connection of its own, handshake included, as a caller without tracing would send it. */
async function sendRaw(port: number, frame: CommandFrame): Promise<unknown> {
  const secret = new CommandSecret(SECRET);
  const socket = connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  const callerNonce = newNonce();
  const answers: Array<{ id: number; body: unknown }> = [];
  const decoder = new FrameDecoder(1 << 20, (id, payload) => answers.push({ id, body: JSON.parse(payload!.toString('utf8')) }));
  socket.on('data', (chunk: Buffer) => decoder.push(chunk));
  const next = async () => {
    while (answers.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    return answers.shift()!;
  };
  socket.write(encodeFrame(HANDSHAKE_EXCHANGE_ID, JSON.stringify({ hello: 1, key: secret.keyId, nonce: callerNonce })));
  const challenge = (await next()).body as { nonce: string };
  socket.write(encodeFrame(HANDSHAKE_EXCHANGE_ID, JSON.stringify({ proof: secret.proof('caller', callerNonce, challenge.nonce) })));
  socket.write(encodeFrame(1, JSON.stringify(frame)));
  const answer = await next();
  socket.destroy();
  return answer.body;
}
