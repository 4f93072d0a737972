import { Logger } from '@nestjs/common';
import { Client, type ClientConfig } from 'pg';

/**
 * One active watcher per chain across replicas: a Postgres advisory lock per chain, held on a connection of its
 * own. When the holder dies its session ends (within about a second: PG_SESSION_OPTIONS) and with it the lock, and
 * another replica's next try takes the chain. The step's fenced save covers the moment between.
 */
export class ChainLocks {
  private readonly logger = new Logger('ChainLocks');
  private client: Client | null = null;
  private connecting: Promise<Client> | null = null;
  private readonly held = new Set<number>();

  constructor(private readonly config: ClientConfig) {}

  /** True while this process holds `chainId`'s lock (tries to take it when it does not). */
  async hold(chainId: number): Promise<boolean> {
    if (this.held.has(chainId)) return true;
    const client = await this.connection();
    const [row] = (await client.query<{ taken: boolean }>(`SELECT pg_try_advisory_lock(hashtextextended('chain-watch:' || $1::text, 0)) AS taken`, [chainId])).rows;
    if (row?.taken) {
      // The client may have been lost while the query ran: only a live client's lock counts.
      if (this.client !== client) return false;
      this.held.add(chainId);
      this.logger.log({ chainId }, 'watching the chain (this instance holds its lock)');
    }
    return this.held.has(chainId);
  }

  holds(chainId: number): boolean {
    return this.held.has(chainId);
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.held.clear();
    await client?.end().catch(() => undefined);
  }

  private connection(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = new Client(this.config);
      client.on('error', (error) => this.lost(client, error));
      client.on('end', () => this.lost(client));
      try {
        await client.connect();
      } catch (error) {
        this.connecting = null;
        throw error;
      }
      this.client = client;
      this.connecting = null;
      return client;
    })();
    return this.connecting;
  }

  private lost(client: Client, error?: Error): void {
    if (this.client !== client) return;
    if (this.held.size > 0) this.logger.warn({ err: error, chains: [...this.held] }, 'lost the lock connection: no longer watching its chains until a lock is taken again');
    this.client = null;
    this.held.clear();
    void client.end().catch(() => undefined);
  }
}
