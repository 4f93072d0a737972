#!/usr/bin/env node
// The ledger's operator commands: `npm run admin -- ledger check|adjust ... [--json]` (after `npm run build`).
// Settings as the ledger service's (DATABASE_URL, DB_SCHEMA=ledger, SESSIONS_DB_SCHEMA=sessions, REFUNDS_DB_SCHEMA=refunds).
import 'reflect-metadata';
import { loadConfig } from '@payments/config';
import { isEnvironment } from '@payments/ids';
import { PG_SESSION_OPTIONS, qualified } from '@payments/database';
import { formatMoney } from '@payments/money';
import { dataSourceOptions, runMigrationsLocked } from '@payments/platform';
import { Command, InvalidArgumentError } from 'commander';
import { DataSource } from 'typeorm';
import { checkLedger, reportLines } from '../check/ledger-check';
import { LedgerConfig, LEDGER_DEFAULTS } from '../config';
import { createLedger } from '../ledger.composition';
import { LEDGER_MIGRATIONS } from '../migrations/ledger-schema';
import { adjust, AdjustmentError } from './adjustment';

interface Output {
  json: unknown;
  lines: string[];
  /** Non-zero when the command found something wrong (ledger check). */
  exitCode?: number;
}

async function withLedger(work: (dataSource: DataSource, config: LedgerConfig) => Promise<Output>, json: boolean): Promise<void> {
  const config = loadConfig(LedgerConfig, process.env, LEDGER_DEFAULTS);
  const dataSource = new DataSource({ ...dataSourceOptions(config, { migrations: LEDGER_MIGRATIONS }), extra: { max: 2, connectionTimeoutMillis: 5000, options: PG_SESSION_OPTIONS } });
  await dataSource.initialize();
  try {
    await runMigrationsLocked(dataSource, config.DB_SCHEMA);
    const output = await work(dataSource, config);
    process.stdout.write(json ? `${JSON.stringify(output.json)}\n` : `${output.lines.join('\n')}\n`);
    if (output.exitCode) process.exitCode = output.exitCode;
  } finally {
    await dataSource.destroy();
  }
}

function parseEnvironment(value: string): 'live' | 'test' {
  if (!isEnvironment(value)) throw new InvalidArgumentError('must be live or test');
  return value;
}

const program = new Command('admin').description('Operator commands of the ledger.').showHelpAfterError();
const ledger = program.command('ledger').description('the journal and balances');

ledger
  .command('check')
  .description("verify every invariant of the journal against itself and the owners' payments and refunds; exits 1 with a report of each difference, or when an owner's data cannot be read")
  .option('--merchant <merchant_id>', 'only this merchant (and the platform accounts)')
  .option('--journal-only', 'leave out the comparison with sessions and the refunds service (a ledger run without them)', false)
  .option('--json', 'print one JSON object', false)
  .action((o: { merchant?: string; journalOnly: boolean; json: boolean }) =>
    withLedger(async (dataSource, config) => {
      const schemas = { ledger: config.DB_SCHEMA, sessions: config.SESSIONS_DB_SCHEMA, refunds: config.REFUNDS_DB_SCHEMA };
      const report = await checkLedger(dataSource, schemas, o.merchant ?? null, { journalOnly: o.journalOnly });
      return { json: report, lines: reportLines(report), exitCode: report.ok ? 0 : 1 };
    }, o.json),
  );

ledger
  .command('adjust')
  .description("post a correction to a merchant's available balance (positive credits, negative debits)")
  .requiredOption('--merchant <merchant_id>', 'merchant id (acct_...)')
  .requiredOption('--env <environment>', 'live or test', parseEnvironment)
  .requiredOption('--amount <amount>', 'US dollars, e.g. 12.34 or -12.34')
  .requiredOption('--reason <text>', 'why, shown on the balance transaction')
  .requiredOption('--key <key>', 'idempotency key: the same key never posts twice')
  .option('--json', 'print one JSON object', false)
  .action((o: { merchant: string; env: 'live' | 'test'; amount: string; reason: string; key: string; json: boolean }) =>
    withLedger(async (dataSource, config) => {
      const journal = createLedger(dataSource, { schema: config.DB_SCHEMA, namespace: config.KAFKA_NAMESPACE }).journal;
      const merchants = qualified(config.GATEWAY_DB_SCHEMA, 'merchants');
      const [known] = (await dataSource.query(`SELECT 1 FROM ${merchants} WHERE id = $1`, [o.merchant])) as unknown[];
      if (!known) throw new AdjustmentError(`--merchant ${o.merchant}: no such merchant account`);
      const result = await adjust(journal, { merchantId: o.merchant, environment: o.env, amount: o.amount, reason: o.reason, key: o.key });
      const amount = formatMoney(result.posting.amountCents);
      const available = formatMoney(result.availableCents);
      return {
        json: { posting_id: result.posting.id, created: result.created, amount, available },
        lines: [
          result.created ? `Adjustment ${result.posting.id} posted: ${amount} USD.` : `Adjustment ${result.posting.id} was already posted with this key.`,
          `Available (${o.env}): ${available} USD.`,
        ],
      };
    }, o.json),
  );

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
