// A Kafka broker and a PostgreSQL cluster of a fault test's own, on ports of their own: the test stops and restarts
// them, so it must not touch the machine's shared ones (developers' and tests' databases and topics live there).
// Redis stays shared; the suite does not fault it and its keys are prefixed by a namespace of their own.
import { execFile, execFileSync, type ExecFileOptions } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT } from './services';

function run(command: string, args: string[], options: ExecFileOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { ...options, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed: ${String(stderr || stdout || error.message).slice(-2000)}`));
      else resolve(String(stdout));
    });
  });
}

/** A Kafka broker of the suite's own (scripts/kafka.sh with other ports and data), stopped and started at will. */
export class PrivateKafka {
  readonly brokers: string;
  private readonly env: NodeJS.ProcessEnv;

  /** `advertisedPort`: the port clients are sent to after their first contact (a proxy in front of the broker). */
  constructor(port: number, controllerPort: number, advertisedPort = port) {
    this.brokers = `127.0.0.1:${advertisedPort}`;
    // The jars are shared with the development broker's cache; data, config and pid are per port.
    this.env = { ...process.env, KAFKA_PORT: String(port), KAFKA_CONTROLLER_PORT: String(controllerPort), KAFKA_ADVERTISED_PORT: String(advertisedPort) };
  }

  async start(): Promise<void> {
    await run('bash', [join(REPO_ROOT, 'scripts', 'kafka.sh'), 'start'], { env: this.env });
  }

  async stop(): Promise<void> {
    await run('bash', [join(REPO_ROOT, 'scripts', 'kafka.sh'), 'stop'], { env: this.env });
  }

  /** Stops it and deletes its data, configuration and log. */
  async destroy(): Promise<void> {
    await this.stop().catch(() => undefined);
    const dir = join(REPO_ROOT, '.cache', 'kafka');
    const port = this.env.KAFKA_PORT!;
    for (const name of [`data-${port}`, `server-${port}.properties`, `broker-${port}.log`]) rmSync(join(dir, name), { recursive: true, force: true });
  }
}

/** A throwaway PostgreSQL cluster (initdb in a temporary folder), trust auth on 127.0.0.1 only. */
export class PrivatePostgres {
  readonly url: string;
  private readonly dir: string;
  private readonly bin: string;

  constructor(private readonly port: number) {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    if (versions.length === 0) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql (apt-get install -y postgresql)');
    this.bin = join('/usr/lib/postgresql', versions[0]!, 'bin');
    this.dir = mkdtempSync(join(tmpdir(), 'payments-chaos-pg-'));
    this.url = `postgres://payments@127.0.0.1:${port}/payments`;
  }

  async start(): Promise<void> {
    const data = join(this.dir, 'data');
    if (!existsSync(data)) {
      if (isRoot()) chownSync(this.dir, postgresUid(), postgresGid());
      await this.asOwner('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
      await this.pgCtl('start');
      await this.psql('CREATE ROLE payments LOGIN');
      await this.psql('CREATE DATABASE payments OWNER payments');
      return;
    }
    await this.pgCtl('start');
  }

  /** `pg_ctl restart -m immediate`: like a crash of the server, recovered from its WAL on start. */
  async restart(): Promise<void> {
    await this.asOwner('pg_ctl', ['-D', join(this.dir, 'data'), '-m', 'immediate', '-w', '-t', '60', '-l', join(this.dir, 'log'), '-o', this.options(), 'restart']);
  }

  async destroy(): Promise<void> {
    await this.asOwner('pg_ctl', ['-D', join(this.dir, 'data'), '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private options(): string {
    return `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c max_connections=200`;
  }

  private pgCtl(action: 'start'): Promise<string> {
    return this.asOwner('pg_ctl', ['-D', join(this.dir, 'data'), '-w', '-t', '60', '-l', join(this.dir, 'log'), '-o', this.options(), action]);
  }

  private psql(sql: string): Promise<string> {
    return run('psql', ['-h', '127.0.0.1', '-p', String(this.port), '-U', 'postgres', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-Atqc', sql]);
  }

  /** PostgreSQL refuses to run as root: as root the cluster belongs to the `postgres` user. */
  private asOwner(tool: string, args: string[]): Promise<string> {
    const path = join(this.bin, tool);
    return isRoot() ? run('runuser', ['-u', 'postgres', '--', path, ...args], { cwd: this.dir }) : run(path, args, { cwd: this.dir });
  }
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function idOf(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
}

function postgresUid(): number {
  return idOf('-u');
}

function postgresGid(): number {
  return idOf('-g');
}

/**
 * A TCP proxy in front of a broker that can hang up: while cut, it closes every connection and each new one as
 * soon as it is made, the way a broker going down mid-request looks to a client that was connected to it.
 */
export class HangingUpProxy {
  private readonly server = createServer((client) => this.accept(client));
  private readonly open = new Set<Socket>();
  private cut = false;

  constructor(private readonly targetPort: number) {}

  listen(port: number): Promise<void> {
    return new Promise((resolve) => this.server.listen(port, '127.0.0.1', resolve));
  }

  hangUp(): void {
    this.cut = true;
    for (const socket of this.open) socket.destroy();
  }

  resume(): void {
    this.cut = false;
  }

  close(): Promise<void> {
    this.hangUp();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    if (this.cut) return void client.destroy();
    const upstream = connect(this.targetPort, '127.0.0.1');
    for (const [socket, other] of [[client, upstream], [upstream, client]] as const) {
      this.open.add(socket);
      socket.pipe(other);
      socket.on('error', () => other.destroy());
      socket.on('close', () => {
        this.open.delete(socket);
        other.destroy();
      });
    }
  }
}
