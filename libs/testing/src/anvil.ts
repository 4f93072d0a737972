// A real local EVM chain for tests and the development stack: anvil from @foundry-rs/anvil (its Linux binary is
// inside @foundry-rs/anvil-linux-amd64), on loopback and a free port, stopped, killed and restarted at will.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { freePort } from './services';

export interface AnvilOptions {
  /** Mine a block every this many seconds (interval mining); without it every transaction is mined at once. */
  blockTimeSeconds?: number;
  /** Load the chain from this file if it exists and dump it there on a clean stop (anvil's --state). */
  statePath?: string;
  /** With statePath: also dump the state every this many seconds, so a kill -9 loses at most that much. */
  stateIntervalSeconds?: number;
  port?: number;
  /** 31337 (anvil's own) unless told. */
  chainId?: number;
}

export interface RunningAnvil {
  readonly rpcUrl: string;
  readonly port: number;
  readonly chainId: number;
  /** The current anvil process (a new one after restart()). */
  readonly process: ChildProcess;
  /** The last part of anvil's output, for a failing test's message. */
  output(): string;
  /** SIGTERM and wait for the exit (anvil dumps its --state then). Idempotent. */
  stop(): Promise<void>;
  /** SIGKILL and wait for the exit: nothing is dumped. */
  kill9(): Promise<void>;
  /** Stops it if it runs and starts it again on the same port with the same options. */
  restart(): Promise<void>;
}

const READY_TIMEOUT_MS = 20_000;
const OUTPUT_KEPT = 8_000;

/** Every anvil this process started and has not seen exit: killed when the test process exits. */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** The anvil binary shipped in node_modules, or a clear error when the package is not installed. */
export function anvilBinary(): string {
  let pkg: string;
  try {
    pkg = require.resolve('@foundry-rs/anvil-linux-amd64/package.json');
  } catch {
    throw new Error('anvil is not installed: the package @foundry-rs/anvil-linux-amd64 is missing from node_modules (npm install)');
  }
  const binary = join(dirname(pkg), 'bin', 'anvil');
  if (!existsSync(binary)) throw new Error(`anvil is not installed: ${binary} is missing`);
  return binary;
}

/** Starts anvil and resolves once it answers eth_chainId. */
export async function startAnvil(options: AnvilOptions = {}): Promise<RunningAnvil> {
  const binary = anvilBinary();
  const port = options.port ?? (await freePort());
  const chainId = options.chainId ?? 31337;
  const rpcUrl = `http://127.0.0.1:${port}`;
  const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId), '--quiet'];
  if (options.blockTimeSeconds !== undefined) args.push('--block-time', String(options.blockTimeSeconds));
  if (options.statePath !== undefined) {
    args.push('--state', options.statePath);
    if (options.stateIntervalSeconds !== undefined) args.push('--state-interval', String(options.stateIntervalSeconds));
  }
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const child of live) child.kill('SIGKILL');
    });
  }

  let output = '';
  let child: ChildProcess;
  const spawnOne = async (): Promise<void> => {
    child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-OUTPUT_KEPT);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    live.add(child);
    const started = child;
    started.once('exit', () => live.delete(started));
    await waitUntilAnswering(rpcUrl, started, () => output);
  };
  const waitExit = (signal: NodeJS.Signals): Promise<void> => {
    const running = child;
    if (running.exitCode !== null || running.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      running.once('exit', () => resolve());
      running.kill(signal);
    });
  };

  await spawnOne();
  return {
    rpcUrl,
    port,
    chainId,
    get process() {
      return child;
    },
    output: () => output,
    stop: () => waitExit('SIGTERM'),
    kill9: () => waitExit('SIGKILL'),
    restart: async () => {
      await waitExit('SIGTERM');
      await spawnOne();
    },
  };
}

async function waitUntilAnswering(rpcUrl: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`anvil exited (${child.exitCode ?? child.signalCode}) before answering on ${rpcUrl}: ${output()}`);
    }
    const answered = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    }).then(
      async (res) => res.ok && typeof ((await res.json()) as { result?: unknown }).result === 'string',
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`anvil did not answer eth_chainId on ${rpcUrl} within ${READY_TIMEOUT_MS / 1000} s: ${output()}`);
}
