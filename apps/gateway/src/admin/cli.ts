#!/usr/bin/env node
// The operators' admin CLI: `npm run build` first, then `npm run admin -- <command> [--json]`.
// Settings as the gateway's (DATABASE_URL, DB_SCHEMA=gateway, ...). Errors go to stderr with exit code 1.
import 'reflect-metadata';
import { loadConfig } from '@payments/config';
import { GatewayConfig, GATEWAY_DEFAULTS } from '../config';
import { withMerchantAccounts, withReadOnlyDatabase, withWallets } from './admin-database';
import { storySchemas } from './story';
import { adminProgram, ReadRunner, Runner, WalletRunner } from './admin.program';

const run: Runner = async (work, json) => {
  const config = loadConfig(GatewayConfig, process.env, GATEWAY_DEFAULTS);
  const output = await withMerchantAccounts(config, work);
  process.stdout.write(json ? `${JSON.stringify(output.json)}\n` : `${output.lines.join('\n')}\n`);
};

const runWallets: WalletRunner = async (work, json) => {
  const config = loadConfig(GatewayConfig, process.env, GATEWAY_DEFAULTS);
  const output = await withWallets(config, work);
  process.stdout.write(json ? `${JSON.stringify(output.json)}\n` : `${output.lines.join('\n')}\n`);
};

const runRead: ReadRunner = async (work, json) => {
  const config = loadConfig(GatewayConfig, process.env, GATEWAY_DEFAULTS);
  const schemas = storySchemas(process.env);
  const output = await withReadOnlyDatabase(config, (dataSource) => work(dataSource, schemas));
  process.stdout.write(json ? `${JSON.stringify(output.json)}\n` : `${output.lines.join('\n')}\n`);
};

adminProgram(run, runWallets, runRead)
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    // Refusals (MerchantAccountError) and bad settings (ConfigError) explain themselves; others by message only.
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`error: ${message}\n`);
    process.exitCode = 1;
  });
