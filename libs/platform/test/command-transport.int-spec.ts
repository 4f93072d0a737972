import 'reflect-metadata';
import { Controller, Inject, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { firstValueFrom } from 'rxjs';
import { ApiError, CommandClient, CommandServer, CommandUnavailableError, encodeFrame, FrameDecoder, ServiceClient, type RpcReply, type RpcRequest } from '../src';
import { freePort, waitFor } from '@payments/testing';

const INSTANCE = 'INSTANCE';
/** The command ids svc.slow was run for, on any instance. */
const slowRuns: string[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@Controller()
class TestHandlers {
  constructor(@Inject(INSTANCE) private readonly instance: string) {}

  @MessagePattern('svc.echo')
  echo(@Payload() request: RpcRequest<unknown>): RpcReply {
    return { ok: true, data: { instance: this.instance, body: request.body, command_id: request.command_id, correlation_id: request.correlation_id } };
  }

  @MessagePattern('svc.slow')
  async slow(@Payload() request: RpcRequest<{ ms: number }>): Promise<RpcReply> {
    slowRuns.push(request.command_id);
    await sleep(request.body.ms);
    return { ok: true, data: { instance: this.instance, slept: request.body.ms } };
  }
}

async function startOwner(instance: string): Promise<{ app: INestMicroservice; url: string }> {
  const port = await freePort();
  @Module({ controllers: [TestHandlers], providers: [{ provide: INSTANCE, useValue: instance }] })
  class OwnerModule {}
  const app = await NestFactory.createMicroservice(OwnerModule, { strategy: new CommandServer({ port, host: '127.0.0.1' }), logger: false });
  await app.listen();
  return { app, url: `tcp://127.0.0.1:${port}` };
}

/** Reads commands and closes the connection without answering: an owner that died after receiving them. */
async function startDyingOwner(): Promise<{ server: Server; url: string; received: string[] }> {
  const received: string[] = [];
  const server = createServer((socket: Socket) => {
    const frames = new FrameDecoder(1 << 20, (_id, payload) => {
      received.push(JSON.parse(payload!.toString('utf8')).command_id);
      socket.destroy();
    });
    socket.on('data', (chunk: Buffer) => frames.push(chunk));
    socket.on('error', () => undefined);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, url: `tcp://127.0.0.1:${port}`, received };
}

/**
 * Accepts connections and reads commands without answering them: an instance that is connected but hung (a stopped
 * process, a blocked event loop). Once `answering` is set it answers what it reads from then on, pings included.
 */
async function startHungOwner(): Promise<{ url: string; received: Array<{ pattern: string; commandId: string }>; answering: boolean; close: () => Promise<void> }> {
  const server = createServer();
  const sockets = new Set<Socket>();
  const owner = {
    url: '',
    received: [] as Array<{ pattern: string; commandId: string }>,
    answering: false,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    const frames = new FrameDecoder(1 << 20, (id, payload) => {
      const frame = JSON.parse(payload!.toString('utf8')) as { pattern: string; command_id: string };
      owner.received.push({ pattern: frame.pattern, commandId: frame.command_id });
      if (owner.answering) socket.write(encodeFrame(id, JSON.stringify({ status: 200, reply: { ok: true, data: { instance: 'hung', command_id: frame.command_id } } })));
    });
    socket.on('data', (chunk: Buffer) => frames.push(chunk));
    socket.on('error', () => undefined);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  owner.url = `tcp://127.0.0.1:${port}`;
  return owner;
}

/**
 * A host whose connections neither open nor are refused (gone from the network, or a firewall dropping packets):
 * a listener that never accepts, with its accept queue filled, so the kernel drops every further SYN.
 */
async function startUnansweringHost(): Promise<{ url: string; stop: () => void }> {
  const listener = spawn(
    process.execPath,
    [
      '-e',
      `const s = require('node:net').createServer();
       s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
         console.log(s.address().port);
         // Block the event loop for good: nothing is accepted from now on.
         setTimeout(() => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0), 50);
       });`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [line] = (await once(listener.stdout!, 'data')) as [Buffer];
  const port = Number(line.toString().trim());
  await sleep(100);
  const fillers = Array.from({ length: 4 }, () => connect({ host: '127.0.0.1', port }).on('error', () => undefined));
  await sleep(200);
  return {
    url: `tcp://127.0.0.1:${port}`,
    stop: () => {
      for (const filler of fillers) filler.destroy();
      listener.kill('SIGKILL');
    },
  };
}

type Echo = { instance: string; body: unknown; command_id: string; correlation_id: string };

// The command transport on its own: framed commands over persistent connections, many at once on one connection,
// refusals and failures that tell the caller whether the command may have run.
describe('command transport (framed, persistent connections)', () => {
  const clients: CommandClient[] = [];
  const owners: INestMicroservice[] = [];

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(owners.map((o) => o.close().catch(() => undefined)));
  });

  async function owner(name: string) {
    const started = await startOwner(name);
    owners.push(started.app);
    return started;
  }

  function client(urls: string[], timeoutMs = 5000): { raw: CommandClient; service: ServiceClient } {
    const raw = new CommandClient({ upstreams: { svc: urls }, connections: 1 });
    clients.push(raw);
    return { raw, service: new ServiceClient(raw, timeoutMs) };
  }

  it('carries the command id and request id to the handler, and answers many commands at once on one connection in the order they finish', async () => {
    const a = await owner('a');
    const { service } = client([a.url]);
    const echo = await service.request<Echo>('svc.echo', { n: 1 }, { correlationId: 'req_1', commandId: 'cmd_1' });
    expect(echo).toEqual({ instance: 'a', body: { n: 1 }, command_id: 'cmd_1', correlation_id: 'req_1' });

    const finished: string[] = [];
    const slow = service.request('svc.slow', { ms: 400 }, { correlationId: 'req_slow' }).then(() => finished.push('slow'));
    await sleep(20);
    const quick = await Promise.all(Array.from({ length: 50 }, (_, i) => service.request<Echo>('svc.echo', { i }, { correlationId: `req_${i}` })));
    finished.push('quick');
    await slow;
    // The slow command did not hold the others up; each answer went to its own caller.
    expect(finished).toEqual(['quick', 'slow']);
    expect(quick.map((q) => (q.body as { i: number }).i)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('refuses a command over 256 KiB and an unknown command in the Error shape, and the connection goes on', async () => {
    const a = await owner('a');
    const { raw, service } = client([a.url]);
    const send = (pattern: string, body: unknown) =>
      firstValueFrom(raw.send<RpcReply>(pattern, { command_id: 'c', deadline: Date.now() + 5000, correlation_id: 'r', body, retryable: true }));
    expect(await send('svc.echo', { text: 'x'.repeat(300 * 1024) })).toEqual({ ok: false, error: { code: 'invalid_request', message: expect.stringContaining('larger than') } });
    expect(await send('svc.nope', {})).toEqual({ ok: false, error: { code: 'not_found', message: 'No command svc.nope.' } });
    // Just under the limit is carried whole.
    const large = 'y'.repeat(200 * 1024);
    expect((await service.request<Echo>('svc.echo', { large }, { correlationId: 'r' })).body).toEqual({ large });
  });

  it('closes a connection that does not speak frames (an HTTP request sent to the command port)', async () => {
    const a = await owner('a');
    const { hostname, port } = new URL(a.url);
    const socket = connect({ host: hostname, port: Number(port) });
    socket.on('error', () => undefined);
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.write('POST /commands/svc.echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}');
    await new Promise((resolve) => socket.once('close', resolve));
    expect(Buffer.concat(received).length).toBe(0);
    // The port goes on serving commands.
    const { service } = client([a.url]);
    expect((await service.request<Echo>('svc.echo', {}, { correlationId: 'r' })).instance).toBe('a');
  });

  it('answers 503 when the deadline passes, and the same connection serves the next command at once', async () => {
    const a = await owner('a');
    const { service } = client([a.url], 200);
    const started = Date.now();
    const late = await service.request('svc.slow', { ms: 800 }, { correlationId: 'r' }).catch((error: unknown) => error);
    expect(late).toBeInstanceOf(ApiError);
    expect((late as ApiError).code).toBe('service_unavailable');
    expect(Date.now() - started).toBeLessThan(700);
    expect((await service.request<Echo>('svc.echo', {}, { correlationId: 'r' })).instance).toBe('a');
    // The late answer arrives on the same connection and is dropped without disturbing what follows.
    await sleep(700);
    expect((await service.request<Echo>('svc.echo', { after: true }, { correlationId: 'r' })).body).toEqual({ after: true });
  });

  it('moves commands to the other instance when one refuses connections, and is a quick 503 when none takes them', async () => {
    const b = await owner('b');
    const dead = `tcp://127.0.0.1:${await freePort()}`;
    const { service } = client([dead, b.url]);
    const answers = await Promise.all(Array.from({ length: 10 }, () => service.request<Echo>('svc.echo', {}, { correlationId: 'r' })));
    expect(new Set(answers.map((a) => a.instance))).toEqual(new Set(['b']));

    const { service: nowhere } = client([dead]);
    const started = Date.now();
    await expect(nowhere.request('svc.echo', {}, { correlationId: 'r' })).rejects.toMatchObject({ code: 'service_unavailable' });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('sends a command whose answer was lost again only when its owner deduplicates it', async () => {
    const dying = await startDyingOwner();
    try {
      const { raw } = client([dying.url]);
      const send = (commandId: string, retryable: boolean) =>
        firstValueFrom(raw.send('svc.echo', { command_id: commandId, deadline: Date.now() + 5000, correlation_id: 'r', body: {}, retryable }));
      await expect(send('once', false)).rejects.toBeInstanceOf(CommandUnavailableError);
      expect(dying.received).toEqual(['once']);
      await expect(send('twice', true)).rejects.toBeInstanceOf(CommandUnavailableError);
      expect(dying.received).toEqual(['once', 'twice', 'twice']);
    } finally {
      await new Promise((resolve) => dying.server.close(resolve));
    }
  });

  it('while an instance shuts down, lets its commands in flight answer and sends the rest to the other instance', async () => {
    const a = await owner('a');
    const b = await owner('b');
    const { service } = client([a.url, b.url]);
    // Both connections open and in use.
    const warm = await Promise.all(Array.from({ length: 4 }, () => service.request<Echo>('svc.echo', {}, { correlationId: 'r' })));
    expect(new Set(warm.map((w) => w.instance))).toEqual(new Set(['a', 'b']));

    const inFlight = Promise.all(Array.from({ length: 4 }, () => service.request<{ instance: string }>('svc.slow', { ms: 500 }, { correlationId: 'r' })));
    await sleep(50);
    const closing = a.app.close();
    const during: Echo[] = [];
    const until = Date.now() + 800;
    while (Date.now() < until) {
      during.push(...(await Promise.all(Array.from({ length: 4 }, () => service.request<Echo>('svc.echo', {}, { correlationId: 'r' })))));
      await sleep(10);
    }
    await closing;
    // Every command answered: those already running on a finished there, the rest went to b.
    expect((await inFlight).map((s) => s.instance).sort()).toEqual(['a', 'a', 'b', 'b']);
    expect(during.length).toBeGreaterThan(10);
    expect(new Set(during.map((d) => d.instance))).toEqual(new Set(['b']));
  });

  it('passes over an instance whose connection neither opens nor is refused once the connect timeout ends, well before the deadline', async () => {
    const b = await owner('b');
    const host = await startUnansweringHost();
    const client = (urls: string[]) => {
      const raw = new CommandClient({ upstreams: { svc: urls }, connections: 1, connectTimeoutMs: 300 });
      clients.push(raw);
      return new ServiceClient(raw, 10_000);
    };
    try {
      // Without the connect timeout these would wait out their 10 s deadline on the unanswering host.
      let started = Date.now();
      const answers = await Promise.all(Array.from({ length: 4 }, () => client([host.url, b.url]).request<Echo>('svc.echo', {}, { correlationId: 'r' })));
      expect(new Set(answers.map((a) => a.instance))).toEqual(new Set(['b']));
      expect(Date.now() - started).toBeLessThan(5000);

      started = Date.now();
      await expect(client([host.url]).request('svc.echo', {}, { correlationId: 'r' })).rejects.toMatchObject({ code: 'service_unavailable' });
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      host.stop();
    }
  });
  describe('an instance that is connected but answers nothing', () => {
    const commandsTo = (owner: { received: Array<{ pattern: string; commandId: string }> }) => owner.received.filter((r) => r.pattern !== 'svc.ping');

    function hedgingClient(urls: string[]) {
      const raw = new CommandClient({ upstreams: { svc: urls }, connections: 1, answerWindowMs: 300 });
      clients.push(raw);
      return { raw, service: new ServiceClient(raw, 5000) };
    }

    it('sends the retryable commands waiting on it to the other instance with the same command id, and none fails', async () => {
      const hung = await startHungOwner();
      const b = await owner('b');
      try {
        const { service } = hedgingClient([hung.url, b.url]);
        const ids = Array.from({ length: 6 }, (_, i) => `hedged_${i}`);
        const answers = await Promise.all(ids.map((commandId) => service.request<Echo>('svc.echo', {}, { correlationId: 'r', commandId })));
        expect(answers.map((a) => [a.instance, a.command_id])).toEqual(ids.map((id) => ['b', id]));
        // Some went to the hung instance first and were sent again, with their own ids, to b.
        const first = commandsTo(hung).map((r) => r.commandId);
        expect(first.length).toBeGreaterThan(0);
        expect(ids).toEqual(expect.arrayContaining(first));
        // From then on it is passed over: only pings reach it while it stays silent.
        const later = await Promise.all(Array.from({ length: 6 }, () => service.request<Echo>('svc.echo', {}, { correlationId: 'r' })));
        expect(new Set(later.map((l) => l.instance))).toEqual(new Set(['b']));
        expect(commandsTo(hung).map((r) => r.commandId)).toEqual(first);
      } finally {
        await hung.close();
      }
    });

    it('never sends a command that is not retryable twice: it waits for its deadline there, and the next commands go elsewhere', async () => {
      const hung = await startHungOwner();
      const b = await owner('b');
      try {
        const { raw, service } = hedgingClient([hung.url, b.url]);
        // The first pick is the first instance: the hung one.
        const once = firstValueFrom(raw.send('svc.echo', { command_id: 'not_twice', deadline: Date.now() + 1500, correlation_id: 'r', body: {}, retryable: false }));
        await expect(once).rejects.toBeInstanceOf(CommandUnavailableError);
        expect(commandsTo(hung)).toEqual([{ pattern: 'svc.echo', commandId: 'not_twice' }]);
        const next = await Promise.all(Array.from({ length: 4 }, () => service.request<Echo>('svc.echo', {}, { correlationId: 'r' })));
        expect(new Set(next.map((n) => n.instance))).toEqual(new Set(['b']));
        expect(commandsTo(hung)).toHaveLength(1);
      } finally {
        await hung.close();
      }
    });

    it('does not send a command elsewhere when it is slow on an instance that answers a ping', async () => {
      const a = await owner('a');
      const b = await owner('b');
      const { service } = hedgingClient([a.url, b.url]);
      const slow = await service.request<{ instance: string }>('svc.slow', { ms: 1200 }, { correlationId: 'r', commandId: 'slow_once' });
      expect(slowRuns.filter((id) => id === 'slow_once')).toEqual(['slow_once']);
      // Neither instance was passed over for it.
      const next = await Promise.all(Array.from({ length: 4 }, () => service.request<Echo>('svc.echo', {}, { correlationId: 'r' })));
      expect(new Set(next.map((n) => n.instance))).toEqual(new Set(['a', 'b']));
      expect(['a', 'b']).toContain(slow.instance);
    });

    it('takes commands again once it answers a ping', async () => {
      const hung = await startHungOwner();
      const b = await owner('b');
      try {
        const { service } = hedgingClient([hung.url, b.url]);
        expect((await service.request<Echo>('svc.echo', {}, { correlationId: 'r', commandId: 'while_hung' })).instance).toBe('b');
        expect(commandsTo(hung).map((r) => r.commandId)).toEqual(['while_hung']);
        hung.answering = true;
        const seen = new Set<string>();
        await waitFor(async () => {
          seen.add((await service.request<Echo>('svc.echo', {}, { correlationId: 'r' })).instance);
          return seen.has('hung');
        }, 10_000, 'a command answered by the instance that answers again');
        expect(hung.received.some((r) => r.pattern === 'svc.ping')).toBe(true);
      } finally {
        await hung.close();
      }
    });
  });
});
