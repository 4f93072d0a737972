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
import { CommandSecret, HANDSHAKE_EXCHANGE_ID, newNonce } from '../src/rpc/command-auth';

const SECRET = 'a-command-secret-of-this-test-0123456789';
const OTHER_SECRET = 'another-command-secret-of-this-test-0123';

const INSTANCE = 'INSTANCE';
/** The command ids svc.slow was run for, on any instance. */
const slowRuns: string[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Command ids the test owners' echo handler ran, whichever owner. */
const echoed: string[] = [];

@Controller()
class TestHandlers {
  constructor(@Inject(INSTANCE) private readonly instance: string) {}

  @MessagePattern('svc.echo')
  echo(@Payload() request: RpcRequest<unknown>): RpcReply {
    echoed.push(request.command_id);
    return { ok: true, data: { instance: this.instance, body: request.body, command_id: request.command_id, correlation_id: request.correlation_id } };
  }

  @MessagePattern('svc.slow')
  async slow(@Payload() request: RpcRequest<{ ms: number }>): Promise<RpcReply> {
    slowRuns.push(request.command_id);
    await sleep(request.body.ms);
    return { ok: true, data: { instance: this.instance, slept: request.body.ms } };
  }
}

async function startOwner(instance: string, secrets: string[] = [SECRET]): Promise<{ app: INestMicroservice; url: string }> {
  const port = await freePort();
  @Module({ controllers: [TestHandlers], providers: [{ provide: INSTANCE, useValue: instance }] })
  class OwnerModule {}
  const app = await NestFactory.createMicroservice(OwnerModule, { strategy: new CommandServer({ port, host: '127.0.0.1', secrets }), logger: false });
  await app.listen();
  return { app, url: `tcp://127.0.0.1:${port}` };
}

/**
 * Reads commands and closes the connection without answering: an owner that died after receiving them. It stands
 * in front of a real owner and passes the handshake through, so the caller takes it for an owner.
 */
async function startDyingOwner(): Promise<{ server: Server; url: string; received: string[]; backend: INestMicroservice }> {
  const behind = await startOwner('behind-the-dying-one');
  const backend = new URL(behind.url);
  const received: string[] = [];
  const server = createServer((socket: Socket) => {
    const upstream = connect({ host: backend.hostname, port: Number(backend.port) });
    const fromCaller = new FrameDecoder(1 << 20, (id, payload) => {
      if (id === 0) return void upstream.write(encodeFrame(id, payload!.toString('utf8')));
      received.push(JSON.parse(payload!.toString('utf8')).command_id);
      socket.destroy();
      upstream.destroy();
    });
    const fromOwner = new FrameDecoder(1 << 20, (id, payload) => {
      if (id === 0) socket.write(encodeFrame(id, payload!.toString('utf8')));
    });
    socket.on('data', (chunk: Buffer) => fromCaller.push(chunk));
    upstream.on('data', (chunk: Buffer) => fromOwner.push(chunk));
    socket.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, url: `tcp://127.0.0.1:${port}`, received, backend: behind.app };
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
      // It does its side of the handshake (it holds the secret), then answers nothing.
      if (id === HANDSHAKE_EXCHANGE_ID) {
        const hello = JSON.parse(payload!.toString('utf8')) as { nonce?: string };
        if (hello.nonce === undefined) return; // the caller's proof
        const nonce = newNonce();
        return void socket.write(encodeFrame(id, JSON.stringify({ nonce, proof: new CommandSecret(SECRET).proof('owner', hello.nonce, nonce) })));
      }
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

  async function owner(name: string, secrets?: string[]) {
    const started = await startOwner(name, secrets);
    owners.push(started.app);
    return started;
  }

  function client(urls: string[], timeoutMs = 5000, secrets = [SECRET]): { raw: CommandClient; service: ServiceClient } {
    const raw = new CommandClient({ upstreams: { svc: urls }, connections: 1, secrets });
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
      await dying.backend.close();
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
      const raw = new CommandClient({ upstreams: { svc: urls }, connections: 1, connectTimeoutMs: 300, secrets: [SECRET] });
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
      const raw = new CommandClient({ upstreams: { svc: urls }, connections: 1, answerWindowMs: 300, secrets: [SECRET] });
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

  describe('authentication (COMMAND_SECRET)', () => {
    /** Connects a raw socket, writes the frames, and gives what came back (frame by frame) once the owner closed it. */
    async function rawExchange(url: string, frames: Array<[number, string]>): Promise<Array<{ id: number; body: string }>> {
      const { hostname, port } = new URL(url);
      const socket = connect({ host: hostname, port: Number(port) });
      socket.on('error', () => undefined);
      const answers: Array<{ id: number; body: string }> = [];
      const decoder = new FrameDecoder(1 << 20, (id, payload) => answers.push({ id, body: payload!.toString('utf8') }));
      socket.on('data', (chunk: Buffer) => decoder.push(chunk));
      for (const [id, body] of frames) socket.write(encodeFrame(id, body));
      await new Promise((resolve) => socket.once('close', resolve));
      return answers;
    }

    const command = (commandId: string) => JSON.stringify({ pattern: 'svc.echo', command_id: commandId, timeout_ms: 5000, correlation_id: 'r', body: {} });

    it('runs no command of a caller with another secret: the owner refuses its connection and the caller answers 503', async () => {
      const a = await owner('a');
      const { service } = client([a.url], 5000, [OTHER_SECRET]);
      const refused = await service.request('svc.echo', {}, { correlationId: 'r', commandId: 'wrong-secret' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ApiError);
      expect((refused as ApiError).code).toBe('service_unavailable');
      expect(echoed).not.toContain('wrong-secret');
      // The port goes on serving callers that hold the secret.
      expect((await client([a.url]).service.request<Echo>('svc.echo', {}, { correlationId: 'r', commandId: 'right-secret' })).instance).toBe('a');
      expect(echoed).toContain('right-secret');
    });

    it('refuses a command sent without the handshake, a hello naming no secret of its own, and one that never proves it', async () => {
      const a = await owner('a');
      const refusal = { id: 0, body: expect.stringContaining('"refused"') };
      expect(await rawExchange(a.url, [[1, command('no-handshake')]])).toEqual([refusal]);
      const unknownKey = JSON.stringify({ hello: 1, key: 'AAAAAAAAAAAAAAAA', nonce: 'n'.repeat(24) });
      expect(await rawExchange(a.url, [[0, unknownKey], [1, command('unknown-key')]])).toEqual([refusal]);
      // A hello that names a key the owner knows still needs the proof, which only the secret makes.
      const { hostname, port } = new URL(a.url);
      const keyId = await new Promise<string>((resolve) => {
        // Read the key id off a real caller's hello, as a listener on the network could.
        const spy = createServer((socket) =>
          socket.on('data', (chunk: Buffer) => {
            resolve(JSON.parse(chunk.subarray(8).toString('utf8')).key);
            socket.destroy();
            spy.close();
          }),
        );
        spy.listen(0, '127.0.0.1', () => {
          const address = spy.address() as { port: number };
          void client([`tcp://127.0.0.1:${address.port}`], 500).service.request('svc.echo', {}, { correlationId: 'r' }).catch(() => undefined);
        });
      });
      const hello = JSON.stringify({ hello: 1, key: keyId, nonce: 'n'.repeat(24) });
      const answers = await rawExchange(`tcp://${hostname}:${port}`, [[0, hello], [0, JSON.stringify({ proof: 'x'.repeat(43) })], [1, command('bad-proof')]]);
      expect(answers).toEqual([{ id: 0, body: expect.stringContaining('"proof"') }, refusal]);
      expect(echoed).not.toContain('no-handshake');
      expect(echoed).not.toContain('unknown-key');
      expect(echoed).not.toContain('bad-proof');
    });

    it('sends no command to a port that does not prove the secret back', async () => {
      const received: string[] = [];
      const impostor = createServer((socket: Socket) => {
        socket.on('error', () => undefined);
        const frames = new FrameDecoder(1 << 20, (id, payload) => {
          if (id === 0) return void socket.write(encodeFrame(0, JSON.stringify({ nonce: 'm'.repeat(24), proof: 'y'.repeat(43) })));
          received.push(payload!.toString('utf8'));
        });
        socket.on('data', (chunk: Buffer) => frames.push(chunk));
      });
      const port = await freePort();
      await new Promise<void>((resolve) => impostor.listen(port, '127.0.0.1', resolve));
      try {
        const answer = await client([`tcp://127.0.0.1:${port}`], 1000).service.request('svc.echo', { card: 'secret' }, { correlationId: 'r' }).catch((e: unknown) => e);
        expect((answer as ApiError).code).toBe('service_unavailable');
        expect(received).toEqual([]);
      } finally {
        await new Promise((resolve) => impostor.close(resolve));
      }
    });

    it('accepts each secret an owner lists while the secret is replaced', async () => {
      const a = await owner('a', [OTHER_SECRET, SECRET]);
      expect((await client([a.url], 5000, [SECRET]).service.request<Echo>('svc.echo', {}, { correlationId: 'r' })).instance).toBe('a');
      expect((await client([a.url], 5000, [OTHER_SECRET, SECRET]).service.request<Echo>('svc.echo', {}, { correlationId: 'r' })).instance).toBe('a');
    });
  });
});
