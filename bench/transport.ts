// The command transport candidates side by side, on this machine: the same @MessagePattern handler served by
// Nest's TCP transport and by the project's framed transport (CommandServer/CommandClient), called through
// ClientProxy.send with a small JSON body. Prints calls/s, p50/p99 and the CPU per call of client and server; asserts nothing.
// Usage: node -r ./tools/swc-register.js bench/transport.ts [--calls 20000] [--concurrency 32]
import 'reflect-metadata';
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ClientProxy, ClientTCP, MessagePattern, Payload, Transport } from '@nestjs/microservices';
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { firstValueFrom } from 'rxjs';
import { DEVELOPMENT_COMMAND_SECRET } from '@payments/config';
import { CommandClient, CommandServer } from '@payments/platform';
import { freePort } from '@payments/testing';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const calls = arg('calls', 20000);
const concurrency = arg('concurrency', 32);
const body = { merchant_id: 'acct_bench', environment: 'test', id: 'pi_test_000000000000000000000000' };

@Controller()
class EchoController {
  @MessagePattern('sessions.echo')
  echo(@Payload() request: unknown): unknown {
    return { ok: true, data: request };
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

/** Child process: serves the echo handler on the given transport and port. */
async function serve(kind: string, port: number): Promise<void> {
  const strategy = kind === 'framed' ? { strategy: new CommandServer({ port, host: '127.0.0.1', secrets: [DEVELOPMENT_COMMAND_SECRET] }) } : { transport: Transport.TCP, options: { host: '127.0.0.1', port } };
  const app = await NestFactory.createMicroservice(EchoModule, { ...strategy, logger: false } as never);
  await app.listen();
  process.send?.('ready');
}

function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

async function measure(kind: string): Promise<void> {
  const port = await freePort();
  const child = fork(__filename, ['--serve', kind, String(port)], { execArgv: process.execArgv });
  await new Promise<void>((resolve) => child.once('message', () => resolve()));
  const client: ClientProxy =
    kind === 'framed'
      ? new CommandClient({ upstreams: { sessions: [`tcp://127.0.0.1:${port}`] }, secrets: [DEVELOPMENT_COMMAND_SECRET] })
      : (new ClientTCP({ host: '127.0.0.1', port }) as unknown as ClientProxy);
  await client.connect();
  const packet = (i: number) =>
    kind === 'framed' ? { command_id: String(i), deadline: Date.now() + 5000, correlation_id: 'bench', body, retryable: true } : body;
  const call = (i: number) => firstValueFrom(client.send('sessions.echo', packet(i)));
  for (let i = 0; i < 2000; i++) await call(i); // warm-up
  const latencies: number[] = [];
  const serverBefore = cpuTicks(child.pid!);
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) {
        const i = next++;
        const t = performance.now();
        await call(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const clientCpu = process.cpuUsage(clientBefore);
  const serverMs = ((cpuTicks(child.pid!) - serverBefore) * 10) / calls;
  const clientMs = (clientCpu.user + clientCpu.system) / 1000 / calls;
  latencies.sort((a, b) => a - b);
  const p = (q: number) => latencies[Math.floor(q * (latencies.length - 1))]!.toFixed(2);
  console.log(
    `${kind.padEnd(6)} ${Math.round(calls / elapsed)} calls/s  p50 ${p(0.5)} ms  p99 ${p(0.99)} ms  CPU per call: client ${clientMs.toFixed(3)} ms, server ${serverMs.toFixed(3)} ms, total ${(clientMs + serverMs).toFixed(3)} ms`,
  );
  await client.close();
  child.kill();
}

if (process.argv[2] === '--serve') {
  void serve(process.argv[3]!, Number(process.argv[4]));
} else {
  void (async () => {
    console.log(`bench transport: ${calls} calls, ${concurrency} in flight, ${new Date().toISOString()}`);
    // Alternating, twice each: VMs of this kind drift during a run.
    for (const kind of ['tcp', 'framed', 'tcp', 'framed']) await measure(kind);
  })();
}
