import { Command, InvalidArgumentError, Option } from 'commander';
import { FEE_METHODS, formatMoney, parseMoneyString, type FeeMethod } from '@payments/money';
import { ApiError } from '@payments/platform';
import type { LedgerClient } from '../balance/ledger.client';
import { normaliseEmail } from '../wallets/domain/sign-in-codes';
import type { WalletsRepository } from '../wallets/wallets.repository';
import type { AccountsRepository } from '../accounts/accounts.repository';
import { resetDemoOwner } from '../accounts/demo-owner';
import { PasswordHasher } from '../accounts/password-hasher';
import type { MerchantAccounts } from '../merchants/merchant-accounts.service';
import { KEY_ROLL_OVERLAPS, type KeyRollOverlap } from '../merchants/api-key-lifetime';
import { PAYMENT_METHODS } from '../merchants/payment-methods';
import { CommandOutput, keyJson, limitText, merchantJson } from './admin-output';
import { readStory, storyOutput, type StorySchemas } from './story';
import type { DataSource } from 'typeorm';

/** Runs one command's work against the accounts and prints its output (JSON or text). */
export type Runner = (work: (accounts: MerchantAccounts, users: AccountsRepository) => Promise<CommandOutput>, json: boolean) => Promise<void>;

/** Runs a wallet command's work against the wallets' table and the ledger. */
export type WalletRunner = (work: (wallets: WalletsRepository, ledger: LedgerClient) => Promise<CommandOutput>, json: boolean) => Promise<void>;

/** Runs a read-only command's work against the database (every owner's schema) with the owners' schema names. */
export type ReadRunner = (work: (dataSource: DataSource, schemas: StorySchemas) => Promise<CommandOutput>, json: boolean) => Promise<void>;

const KEYS_ONCE = 'Keys are shown only now: store them safely.';

/** The operators' admin CLI (DESIGN §8). Every command accepts --json for stable, scriptable output. */
export function adminProgram(run: Runner, runWallets?: WalletRunner, runRead?: ReadRunner): Command {
  const program = new Command('admin')
    .description('Operator commands for merchant accounts and API keys (the gateway database).')
    .showHelpAfterError();

  const merchant = program.command('merchant').description('merchant accounts');

  withJson(merchant.command('create').description('create a merchant with a test key (and a live key when --verified)'))
    .requiredOption('--name <name>', 'business name')
    .requiredOption('--email <email>', 'contact e-mail (one account per address)')
    .option('--verified', 'create it identity-verified, with a live key', false)
    .action((o: { name: string; email: string; verified: boolean; json: boolean }) =>
      run(async (accounts) => {
        const created = await accounts.createMerchant({ name: o.name, email: o.email, verified: o.verified });
        const id = created.merchant.id;
        const json: Record<string, unknown> = { merchant_id: id, test_key: created.testKey.token };
        if (created.liveKey) json.live_key = created.liveKey.token;
        return {
          json,
          lines: [
            `Merchant ${id} created (${created.merchant.verificationStatus}).`,
            `Test key: ${created.testKey.token}`,
            created.liveKey
              ? `Live key: ${created.liveKey.token}`
              : `No live key: verify the account first (admin merchant verify --id ${id}), then: admin key create --merchant ${id} --env live`,
            KEYS_ONCE,
          ],
        };
      }, o.json),
    );

  withJson(merchant.command('verify').description('mark a merchant identity-verified (live keys start working)'))
    .requiredOption('--id <merchant_id>', 'merchant id (acct_...)')
    .action((o: { id: string; json: boolean }) =>
      run(async (accounts) => {
        const m = await accounts.verifyMerchant(o.id);
        return { json: { merchant_id: m.id, verification_status: m.verificationStatus }, lines: [`Merchant ${m.id} is verified.`] };
      }, o.json),
    );

  withJson(merchant.command('reject').description('refuse a merchant\'s verification details with a reason it reads (it may submit again)'))
    .requiredOption('--id <merchant_id>', 'merchant id (acct_...)')
    .requiredOption('--reason <text>', 'what the merchant must fix (1 to 500 characters)')
    .action((o: { id: string; reason: string; json: boolean }) =>
      run(async (accounts) => {
        const m = await accounts.rejectMerchant(o.id, o.reason);
        return {
          json: { merchant_id: m.id, verification_status: m.verificationStatus, rejection_reason: m.rejectionReason },
          lines: [`Merchant ${m.id} is rejected: ${m.rejectionReason}`],
        };
      }, o.json),
    );

  withJson(merchant.command('limits').description('set requests per second per key ("default" = the operator setting)'))
    .requiredOption('--id <merchant_id>', 'merchant id (acct_...)')
    .option('--live <n>', 'per live key: a number or "default"', parseLimit)
    .option('--test <n>', 'per test key: a number or "default"', parseLimit)
    .action((o: { id: string; live?: Limit; test?: Limit; json: boolean }) =>
      run(async (accounts) => {
        const m = await accounts.setRateLimits(o.id, { live: limitValue(o.live), test: limitValue(o.test) });
        return {
          json: { merchant_id: m.id, rate_limit_live_per_sec: m.rateLimitLivePerSec, rate_limit_test_per_sec: m.rateLimitTestPerSec },
          lines: [`Merchant ${m.id}: live ${limitText(m.rateLimitLivePerSec)}, test ${limitText(m.rateLimitTestPerSec)} per key.`],
        };
      }, o.json),
    );

  const fees = withJson(merchant.command('fees').description('set a merchant\'s fee rates in basis points per method ("default" = the standard schedule)'))
    .requiredOption('--id <merchant_id>', 'merchant id (acct_...)');
  for (const method of FEE_METHODS) fees.option(`--${method} <bps>`, `${method} rate: basis points (150 = 1.5 %) or "default"`, parseBps);
  fees.action((o: { id: string; json: boolean } & Partial<Record<FeeMethod, Bps>>) =>
    run(async (accounts) => {
      const change = Object.fromEntries(FEE_METHODS.filter((m) => o[m] !== undefined).map((m) => [m, o[m] === 'default' ? null : o[m]]));
      const m = await accounts.setFeeOverrides(o.id, change);
      const schedule = accounts.feeScheduleOf(m);
      return {
        json: { merchant_id: m.id, fee_overrides: m.feeOverrides, fee_schedule_bps: schedule },
        lines: [`Merchant ${m.id} fees: ${FEE_METHODS.map((method) => `${method} ${schedule[method]} bps${m.feeOverrides?.[method] !== undefined ? ' (own)' : ''}`).join(', ')}.`],
      };
    }, o.json),
  );

  withJson(merchant.command('methods').description('set the payment methods a merchant may offer'))
    .requiredOption('--id <merchant_id>', 'merchant id (acct_...)')
    .requiredOption('--methods <list>', `comma-separated, from ${PAYMENT_METHODS.join(',')}`, parseList)
    .action((o: { id: string; methods: string[]; json: boolean }) =>
      run(async (accounts) => {
        const m = await accounts.setEnabledMethods(o.id, o.methods);
        return {
          json: { merchant_id: m.id, enabled_methods: m.enabledMethods },
          lines: [`Merchant ${m.id} offers ${m.enabledMethods.join(', ')}.`],
        };
      }, o.json),
    );

  withJson(merchant.command('show').description('a merchant and its keys (never their secrets)'))
    .requiredOption('--id <merchant_id>', 'merchant id (acct_...)')
    .action((o: { id: string; json: boolean }) =>
      run(async (accounts) => {
        const m = await accounts.getMerchant(o.id);
        const keys = await accounts.listKeys(m.id);
        return {
          json: { ...merchantJson(m), keys: keys.map(keyJson) },
          lines: [
            `${m.id} ${m.name} <${m.email}> ${m.verificationStatus}${m.rejectionReason ? ` (reason: ${m.rejectionReason})` : ''}`,
            ...(m.verificationSubmittedAt
              ? [`verification details (${m.verificationSubmittedAt.toISOString()}): ${m.businessName}, ${m.country}, owner ${m.ownerName}, contact ${m.contact}`]
              : ['verification details: none submitted']),
            `methods: ${m.enabledMethods.join(', ')}; limits: live ${limitText(m.rateLimitLivePerSec)}, test ${limitText(m.rateLimitTestPerSec)}`,
            ...keys.map((k) => `key ${k.keyId} ${k.environment} ${k.name ?? ''}${k.revokedAt ? ` revoked ${k.revokedAt.toISOString()}` : ''}`),
          ],
        };
      }, o.json),
    );

  const key = program.command('key').description('API keys');

  withJson(key.command('create').description('create an API key (live needs a verified merchant)'))
    .requiredOption('--merchant <merchant_id>', 'merchant id (acct_...)')
    .addOption(new Option('--env <environment>', 'live or test').choices(['live', 'test']).makeOptionMandatory())
    .option('--name <name>', 'a label for the developer page')
    .action((o: { merchant: string; env: string; name?: string; json: boolean }) =>
      run(async (accounts) => {
        const created = await accounts.createKey(o.merchant, o.env, o.name);
        return {
          json: { ...keyJson(created.key), key: created.token },
          lines: [`Key ${created.key.keyId} (${created.key.environment}) for ${created.key.merchantId}:`, created.token, KEYS_ONCE],
        };
      }, o.json),
    );

  withJson(key.command('revoke').description('revoke an API key (every gateway refuses it within a second)'))
    .requiredOption('--key <key_id>', 'the key id (or the whole key)')
    .action((o: { key: string; json: boolean }) =>
      run(async (accounts) => {
        const revoked = await accounts.revokeKey(keyIdOf(o.key));
        return {
          json: { key_id: revoked.keyId, merchant_id: revoked.merchantId, revoked_at: revoked.revokedAt?.toISOString() ?? null },
          lines: [`Key ${revoked.keyId} revoked at ${revoked.revokedAt?.toISOString()}.`],
        };
      }, o.json),
    );

  withJson(key.command('roll').description('replace an API key with a new one; the old one works until the overlap ends'))
    .requiredOption('--key <key_id>', 'the key id (or the whole key)')
    .addOption(new Option('--overlap <period>', 'how long the old key keeps working').choices([...KEY_ROLL_OVERLAPS]).default('24h'))
    .action((o: { key: string; overlap: KeyRollOverlap; json: boolean }) =>
      run(async (accounts) => {
        const rolled = await accounts.rollKey(keyIdOf(o.key), o.overlap);
        const expiresAt = rolled.rolled.expiresAt?.toISOString() ?? null;
        return {
          json: { ...keyJson(rolled.key), key: rolled.token, rolled_key_id: rolled.rolled.keyId, rolled_key_expires_at: expiresAt },
          lines: [`Key ${rolled.rolled.keyId} works until ${expiresAt}; its replacement ${rolled.key.keyId}:`, rolled.token, KEYS_ONCE],
        };
      }, o.json),
    );

  withJson(program.command('demo').description('get or create the verified demo merchant and print a fresh test key (development)'))
    .option('--dashboard', 'also give its dashboard owner (demo@example.com, made on first use) a new password and print it', false)
    .action((o: { dashboard: boolean; json: boolean }) =>
      run(async (accounts, users) => {
        const demo = await accounts.demo();
        const json: Record<string, string> = { merchant_id: demo.merchant.id, name: demo.merchant.name, email: demo.merchant.email, test_key: demo.testKey.token };
        const lines = [`Demo merchant ${demo.merchant.id} (${demo.merchant.name}, ${demo.merchant.email})`, `Test key: ${demo.testKey.token}`];
        // Only when asked (npm start): `npm run try` takes a test key too and must not change a password just printed.
        if (o.dashboard) {
          const owner = await resetDemoOwner(users, new PasswordHasher(), demo.merchant.id, demo.merchant.email);
          Object.assign(json, { dashboard_email: owner.email, dashboard_password: owner.password });
          lines.push(`Dashboard sign-in: ${owner.email} / ${owner.password}`);
        }
        return { json, lines };
      }, o.json),
    );

  if (runWallets) addWalletCommands(program, runWallets);
  if (runRead) {
    withJson(program.command('story').description("a payment's whole story across the services' data: its session's events, provider attempts, the payment, ledger postings, refunds, webhook deliveries and attempts"))
      .argument('<id>', 'a payment intent (pi_...), invoice (inv_...), payment (its number) or refund id')
      .action((id: string, o: { json: boolean }) => runRead(async (dataSource, schemas) => storyOutput(await readStory(dataSource, schemas, id)), o.json));
  }

  return program;
}

/** Customer wallets (togo): an operator's credit, once per key, and a wallet's balance. */
function addWalletCommands(program: Command, run: WalletRunner): void {
  const wallet = program.command('wallet').description('customer wallets (togo): one per e-mail address and environment');
  const caller = () => ({ correlationId: `admin-${Date.now()}` });

  withJson(wallet.command('credit').description('credit a wallet from the platform (made on first use); once per --key'))
    .requiredOption('--email <email>', "the customer's e-mail address")
    .requiredOption('--amount <amount>', 'USD, such as 25.00 (0.01 to 999999.99)', parseAmount)
    .requiredOption('--key <key>', 'idempotency key: the same key credits once (1 to 190 characters)', parseKey)
    .addOption(new Option('--env <environment>', 'live or test').choices(['live', 'test']).default('live'))
    .option('--description <text>', "shown on the customer's statement (at most 500 characters)", parseDescription)
    .action((o: { email: string; amount: string; key: string; env: 'live' | 'test'; description?: string; json: boolean }) =>
      run(async (wallets, ledger) => {
        const email = emailOf(o.email);
        const found = await wallets.getOrCreate(o.env, email);
        const credited = await ledgerCall(() =>
          ledger.creditWallet({ wallet_id: found.id, environment: o.env, amount: o.amount, key: o.key, ...(o.description ? { description: o.description } : {}) }, caller()),
        );
        return {
          json: { wallet_id: found.id, email, environment: o.env, amount: o.amount, posting_id: credited.posting_id, created: credited.created, balance: credited.balance },
          lines: [
            credited.created ? `Credited ${o.amount} USD to ${found.id} (${email}, ${o.env}).` : `Key ${o.key} was already credited to ${found.id}: nothing new.`,
            `Posting ${credited.posting_id}; balance ${credited.balance} USD.`,
          ],
        };
      }, o.json),
    );

  withJson(wallet.command('show').description("a wallet's balance"))
    .requiredOption('--email <email>', "the customer's e-mail address")
    .addOption(new Option('--env <environment>', 'live or test').choices(['live', 'test']).default('live'))
    .action((o: { email: string; env: 'live' | 'test'; json: boolean }) =>
      run(async (wallets, ledger) => {
        const email = emailOf(o.email);
        const found = await wallets.findByEmail(o.env, email);
        if (!found) throw new Error(`no ${o.env} wallet for ${email}`);
        const balance = await ledgerCall(() => ledger.getWallet({ wallet_id: found.id, environment: o.env }, caller()));
        return {
          json: { wallet_id: found.id, email, environment: o.env, name: found.name, phone: found.phone, country: found.country, balance: balance.available, created_at: found.createdAt.toISOString() },
          lines: [`${found.id} ${email} (${o.env}): ${balance.available} USD`],
        };
      }, o.json),
    );
}

function emailOf(value: string): string {
  const email = normaliseEmail(value);
  if (!email) throw new Error('--email must be one e-mail address, such as name@example.com');
  return email;
}

function parseAmount(value: string): string {
  const parsed = parseMoneyString(value, { minCents: 1 });
  if (!parsed.ok) throw new InvalidArgumentError(`an amount in USD such as 25.00: ${parsed.message}`);
  return formatMoney(parsed.cents);
}

function parseKey(value: string): string {
  if (value.length < 1 || value.length > 190) throw new InvalidArgumentError('1 to 190 characters');
  return value;
}

function parseDescription(value: string): string {
  if (value.length > 500) throw new InvalidArgumentError('at most 500 characters');
  return value;
}

/** The ledger's refusal or absence as one line for the operator. */
async function ledgerCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ApiError) throw new Error(`ledger: ${error.code}: ${error.message}`);
    throw error;
  }
}

function withJson(command: Command): Command {
  return command.option('--json', 'print one JSON object', false);
}

// commander turns a parsed null into `true`, so "default" stays a word until the action.
type Bps = number | 'default';

function parseBps(value: string): Bps {
  if (value === 'default') return value;
  if (!/^\d{1,5}$/.test(value)) throw new InvalidArgumentError('a whole number of basis points (150 = 1.5 %), or "default"');
  return Number(value);
}

type Limit = number | 'default';

function parseLimit(value: string): Limit {
  if (value === 'default') return value;
  if (!/^\d{1,6}$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('a whole number of requests per second, or "default"');
  return Number(value);
}

function limitValue(limit: Limit | undefined): number | null | undefined {
  return limit === 'default' ? null : limit;
}

function parseList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Operators may paste the whole key; only its id part is needed (and the secret is not echoed anywhere). */
function keyIdOf(value: string): string {
  const match = /^pay_(?:live|test)_([A-Za-z0-9]+)(?:\..*)?$/.exec(value);
  return match ? (match[1] as string) : value;
}
