// The sessions use cases on a real, migrated test database, without Kafka: the fast way to drive commands.
import { Logger } from '@nestjs/common';
import { loadConfig } from '@payments/config';
import type { EventEnvelope } from '@payments/events';
import { createTestDatabase, uniqueName, type TestDatabase } from '@payments/testing';
import type { DataSource } from 'typeorm';
import type { CryptoSettings } from '@payments/chain';
import { SessionsConfig, SESSIONS_DEFAULTS } from '../../src/config';
import { depositAddressesOf } from '../../src/crypto/deposit-addresses';
import { ExpiryScheduler } from '../../src/expiry/expiry.scheduler';
import { SESSIONS_MIGRATIONS } from '../../src/migrations/sessions-schema';
import { SessionsDatabase } from '../../src/shared/sessions-database';
import { createSessions, type Sessions } from '../../src/sessions.composition';
import { FakeWalletLedger } from './fake-wallet-ledger';
import { TestClock } from './test-clock';

// Retries and runs are logged at debug/log level; tests only want to see what went wrong.
Logger.overrideLogger(['error', 'warn']);

export const SCHEMA = SESSIONS_DEFAULTS.DB_SCHEMA;
export const BASE_URL = 'https://pay.example.test';

export interface StoredEventRow {
  position: string;
  stream_id: string;
  version: number;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/** One sessions "instance": its own DataSource (own connection pool) on the shared database. */
export interface SessionsInstance {
  dataSource: DataSource;
  sessions: SessionsDatabase;
  intents: Sessions['intents'];
  invoices: Sessions['invoices'];
  expirers: Sessions['expirers'];
  providerPayments: Sessions['providerPayments'];
  providerRefunds: Sessions['providerRefunds'];
  walletPayments: Sessions['walletPayments'];
  walletTopUps: Sessions['walletTopUps'];
  walletHandlers: Sessions['walletHandlers'];
  transferSink: Sessions['transferSink'];
  watchedAddresses: Sessions['watchedAddresses'];
  expiry: ExpiryScheduler;
}

export interface SessionsHarness extends SessionsInstance {
  db: TestDatabase;
  namespace: string;
  clock: TestClock;
  config: SessionsConfig;
  /** The ledger's wallet commands every instance sends (an in-process stand-in of the port). */
  ledger: FakeWalletLedger;
  /** Another instance on the same database (two expiry jobs racing, ...). */
  instance(): Promise<SessionsInstance>;
  eventsOf(streamId: string): Promise<StoredEventRow[]>;
  outboxOf(aggregateId: string): Promise<EventEnvelope<Record<string, unknown>>[]>;
  count(table: string, where?: string, params?: unknown[]): Promise<number>;
  close(): Promise<void>;
}

/** `env`: more settings (e.g. the Lahza stand-in's address and key); `crypto`: the crypto settings (none by default). */
export async function createHarness(options: { db?: TestDatabase; namespace?: string; env?: Record<string, string>; crypto?: CryptoSettings } = {}): Promise<SessionsHarness> {
  const db = options.db ?? (await createTestDatabase('sessions'));
  const namespace = options.namespace ?? uniqueName('ses');
  const clock = new TestClock();
  const ledger = new FakeWalletLedger();
  const config = loadConfig(
    SessionsConfig,
    { DATABASE_URL: db.url, KAFKA_NAMESPACE: namespace, PUBLIC_BASE_URL: BASE_URL, LOG_LEVEL: 'warn', ...options.env },
    SESSIONS_DEFAULTS,
  );
  const instance = async (): Promise<SessionsInstance> => {
    const dataSource = await db.dataSource(SCHEMA, SESSIONS_MIGRATIONS);
    const sessions = new SessionsDatabase(dataSource, config);
    const deposits = options.crypto ? depositAddressesOf(options.crypto) : undefined;
    const { intents, invoices, expirers, providerPayments, providerRefunds, walletPayments, walletTopUps, walletHandlers, transferSink, watchedAddresses } = createSessions(
      sessions,
      config,
      clock,
      ledger,
      deposits,
    );
    // The job keeps the real time while a test shifts the commands' clock.
    const expiry = new ExpiryScheduler(sessions, expirers, config, new TestClock());
    return { dataSource, sessions, intents, invoices, expirers, providerPayments, providerRefunds, walletPayments, walletTopUps, walletHandlers, transferSink, watchedAddresses, expiry };
  };
  const first = await instance();
  const query = <T>(sql: string, params: unknown[] = []) => first.dataSource.query(sql, params) as Promise<T>;
  return {
    ...first,
    db,
    namespace,
    clock,
    config,
    ledger,
    instance,
    eventsOf: (streamId) =>
      query(`SELECT position, stream_id, version, type, data, metadata FROM "${SCHEMA}".events WHERE stream_id = $1 ORDER BY version`, [
        streamId,
      ]),
    outboxOf: async (aggregateId) => {
      const rows = await query<Array<{ payload: EventEnvelope<Record<string, unknown>> }>>(
        `SELECT payload::jsonb AS payload FROM "${SCHEMA}".outbox WHERE key = $1 ORDER BY id`,
        [aggregateId],
      );
      return rows.map((row) => row.payload);
    },
    count: async (table, where = 'true', params = []) => {
      const [row] = await query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "${SCHEMA}".${table} WHERE ${where}`, params);
      return row!.n;
    },
    close: async () => {
      if (!options.db) await db.drop();
    },
  };
}

/** A fresh merchant for one test file, and the scope (test environment) its commands carry. */
/** The enclosing suite's harness: created before its tests, closed after them. */
export function suiteHarness(): SessionsHarness {
  let harness: SessionsHarness | undefined;
  beforeAll(async () => {
    harness = await createHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });
  return new Proxy({} as SessionsHarness, {
    get: (_, key) => {
      if (!harness) throw new Error('the harness is created in beforeAll: use it inside a test');
      return Reflect.get(harness, key);
    },
  });
}

export function testMerchant(): { merchant: string; scope: { merchant_id: string; environment: 'test' } } {
  const merchant = uniqueName('acct');
  return { merchant, scope: { merchant_id: merchant, environment: 'test' } };
}

let keys = 0;

/** A create-intent command body for a merchant (all methods enabled by default). */
export function intentCommand(merchantId: string, overrides: Record<string, unknown> = {}, params: Record<string, unknown> = {}) {
  keys += 1;
  return {
    merchant_id: merchantId,
    environment: 'test' as const,
    idempotency_key: `key-${keys}-${uniqueName('k')}`,
    merchant: { enabled_methods: ['togo', 'lahza', 'crypto'] },
    ...overrides,
    params: { amount: '74.00', currency: 'USD' as const, external_ref: 'order-42', ...params },
  };
}

/** A create-invoice command body. */
export function invoiceCommand(merchantId: string, overrides: Record<string, unknown> = {}, params: Record<string, unknown> = {}) {
  return intentCommand(merchantId, overrides, { description: 'Order 42', ...params });
}

/** The API error code a rejected command gave (fails when it succeeded or threw something else). */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    throw error;
  }
  throw new Error('expected the command to be refused');
}
