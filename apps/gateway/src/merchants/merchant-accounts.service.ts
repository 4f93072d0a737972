import { postgresErrorCode } from '@payments/database';
import { DEFAULT_FEE_SCHEDULE, FEE_METHODS, merchantFeeSchedule, type FeeMethod, type FeeSchedule } from '@payments/money';
import { Environment, generateApiKey, hashSecret, isEnvironment } from '@payments/ids';
import type { EntityManager } from 'typeorm';
import { apiKeyStatus, apiKeyUsable, isKeyRollOverlap, KEY_ROLL_OVERLAPS, rolledKeyExpiry, type KeyRollOverlap } from './api-key-lifetime';
import { ApiKeyEntity } from './api-key.entity';
import { MerchantAccountError } from './merchant-account.error';
import { newMerchantId } from './merchant-id';
import { MerchantEntity } from './merchant.entity';
import { MerchantsRepository } from './merchants.repository';
import { isPaymentMethod, PaymentMethod, PAYMENT_METHODS } from './payment-methods';
import {
  checkRejectionReason,
  checkVerificationDetails,
  REJECTABLE_FROM,
  REJECTION_REASON_MAX_LENGTH,
  SUBMITTABLE_FROM,
  VERIFIABLE_FROM,
  type VerificationDetails,
} from '../accounts/verification';

export const DEMO_MERCHANT = { name: 'Demo Store', email: 'demo@example.com' } as const;

/** Whose key a dashboard request may see or change: the signed-in merchant, in the URL's environment. */
export interface KeyOwner {
  merchantId: string;
  environment: Environment;
}

/** A roll's answer: the new key (its token only here) and the old one with its expiry. */
export interface RolledApiKey extends CreatedApiKey {
  rolled: ApiKeyEntity;
}

/** A key as created: the whole token exists only in this answer. */
export interface CreatedApiKey {
  key: ApiKeyEntity;
  token: string;
}

export interface MerchantAccountsOptions {
  /** Development only (VERIFICATION_AUTO_APPROVE): a verification submission is verified at once. */
  autoApproveVerification?: boolean;
  now?: () => Date;
}

export interface CreatedMerchant {
  merchant: MerchantEntity;
  testKey: CreatedApiKey;
  /** Only for a merchant created verified. */
  liveKey?: CreatedApiKey;
}

/** Limit per second, or null for the operator's default; undefined leaves the current value. */
export interface RateLimitChange {
  live?: number | null;
  test?: number | null;
}

const MAX_RATE_LIMIT = 100000;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Merchant accounts and their API keys: what operators (admin CLI) and later the dashboard do with them. */
export class MerchantAccounts {
  constructor(
    private readonly repository: MerchantsRepository,
    /** The operator's standard fee schedule (FEE_SCHEDULE_BPS), under each merchant's own rates. */
    private readonly standardFees: FeeSchedule = DEFAULT_FEE_SCHEDULE,
    private readonly options: MerchantAccountsOptions = {},
  ) {}

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  /** What a merchant's new sessions are charged, per method: the standard schedule with its own rates over it. */
  feeScheduleOf(merchant: Pick<MerchantEntity, 'feeOverrides'>): FeeSchedule {
    return merchantFeeSchedule(merchant.feeOverrides ?? {}, this.standardFees);
  }

  /** Given a manager, the merchant and its keys are written in the caller's transaction (sign-up adds its owner). */
  async createMerchant(input: { name: string; email: string; verified?: boolean }, manager?: EntityManager): Promise<CreatedMerchant> {
    const name = input.name.trim();
    const email = input.email.trim();
    if (name.length === 0 || name.length > 200) throw new MerchantAccountError('invalid', 'name must be 1 to 200 characters');
    if (!EMAIL.test(email) || email.length > 254) throw new MerchantAccountError('invalid', `not an e-mail address: ${email}`);
    const inTransaction = <T>(work: (m: EntityManager) => Promise<T>) => (manager ? work(manager) : this.repository.transaction(work));
    try {
      return await inTransaction(async (manager) => {
        if (await this.repository.findMerchantByEmail(email, manager)) {
          throw new MerchantAccountError('conflict', `a merchant with e-mail ${email} already exists`);
        }
        const merchant = await this.repository.insertMerchant(
          {
            id: newMerchantId(),
            name,
            email,
            verificationStatus: input.verified ? 'verified' : 'unverified',
            enabledMethods: [...PAYMENT_METHODS],
            rateLimitLivePerSec: null,
            rateLimitTestPerSec: null,
            feeOverrides: null,
            businessName: null,
            country: null,
            ownerName: null,
            contact: null,
            verificationSubmittedAt: null,
            verificationDecidedAt: input.verified ? this.now() : null,
            rejectionReason: null,
          },
          manager,
        );
        const testKey = await this.insertKey(merchant.id, 'test', 'Default test key', manager);
        const liveKey = input.verified ? await this.insertKey(merchant.id, 'live', 'Default live key', manager) : undefined;
        return liveKey ? { merchant, testKey, liveKey } : { merchant, testKey };
      });
    } catch (error) {
      // Two creations racing on one address: the unique index decides, the loser gets the same answer as above.
      if (isUniqueViolation(error)) throw new MerchantAccountError('conflict', `a merchant with e-mail ${email} already exists`);
      throw error;
    }
  }

  async getMerchant(id: string): Promise<MerchantEntity> {
    const merchant = await this.repository.findMerchant(id);
    if (!merchant) throw new MerchantAccountError('not_found', `no merchant ${id}`);
    return merchant;
  }

  /** A merchant's keys, oldest first; of one environment when given. */
  listKeys(merchantId: string, environment?: Environment): Promise<ApiKeyEntity[]> {
    return this.repository.listKeys(merchantId, environment);
  }

  /** A key of `owner` (the dashboard's merchant and environment); another merchant's or environment's is not_found. */
  async getOwnKey(owner: KeyOwner, keyId: string): Promise<ApiKeyEntity> {
    return ownedOrNotFound(await this.repository.findKey(keyId), keyId, owner);
  }

  /**
   * The merchant's verification details: unverified or rejected -> pending (resubmission after a rejection is
   * allowed), or straight to verified with VERIFICATION_AUTO_APPROVE. Refused (conflict) while pending or verified.
   */
  async submitVerification(id: string, input: Partial<Record<keyof VerificationDetails, unknown>>): Promise<MerchantEntity> {
    const checked = checkVerificationDetails(input);
    if (!checked.ok) throw new MerchantAccountError('invalid', checked.message, checked.field);
    const now = this.now();
    const approve = this.options.autoApproveVerification === true;
    const moved = await this.repository.transitionVerification(id, SUBMITTABLE_FROM, {
      ...checked.details,
      verificationStatus: approve ? 'verified' : 'pending',
      verificationSubmittedAt: now,
      verificationDecidedAt: approve ? now : null,
      rejectionReason: null,
    });
    if (!moved) {
      const merchant = await this.getMerchant(id);
      throw new MerchantAccountError('conflict', `merchant ${id} is ${merchant.verificationStatus}: nothing to submit`);
    }
    return this.getMerchant(id);
  }

  /** The operator's decision on identity verification; live keys start working within a second. Verifying again changes nothing. */
  async verifyMerchant(id: string): Promise<MerchantEntity> {
    await this.repository.transitionVerification(id, VERIFIABLE_FROM, {
      verificationStatus: 'verified',
      verificationDecidedAt: this.now(),
      rejectionReason: null,
    });
    return this.getMerchant(id);
  }

  /**
   * The operator refuses the details, with a reason the merchant reads (1 to 500 characters); they may submit again.
   * A verified merchant can be rejected too: its live keys stop within a second.
   */
  async rejectMerchant(id: string, reason: string): Promise<MerchantEntity> {
    const text = checkRejectionReason(reason);
    if (text === null) throw new MerchantAccountError('invalid', `give a reason of 1 to ${REJECTION_REASON_MAX_LENGTH} characters`, 'reason');
    if (!(await this.repository.transitionVerification(id, REJECTABLE_FROM, { verificationStatus: 'rejected', verificationDecidedAt: this.now(), rejectionReason: text }))) {
      throw new MerchantAccountError('not_found', `no merchant ${id}`);
    }
    return this.getMerchant(id);
  }

  async setRateLimits(id: string, change: RateLimitChange): Promise<MerchantEntity> {
    if (change.live === undefined && change.test === undefined) {
      throw new MerchantAccountError('invalid', 'give a live or a test limit (or both)');
    }
    for (const [env, value] of Object.entries(change)) {
      if (value !== undefined && value !== null && (!Number.isInteger(value) || value < 1 || value > MAX_RATE_LIMIT)) {
        throw new MerchantAccountError('invalid', `${env} limit must be an integer from 1 to ${MAX_RATE_LIMIT}, or "default"`);
      }
    }
    const changes: { rateLimitLivePerSec?: number | null; rateLimitTestPerSec?: number | null } = {};
    if (change.live !== undefined) changes.rateLimitLivePerSec = change.live;
    if (change.test !== undefined) changes.rateLimitTestPerSec = change.test;
    if (!(await this.repository.updateMerchant(id, changes))) throw new MerchantAccountError('not_found', `no merchant ${id}`);
    return this.getMerchant(id);
  }

  /**
   * A merchant's own fee rates in basis points, per method, over the default schedule; null for a method puts it
   * back on the default. Applies to sessions created from now on (a session keeps the terms it was created with).
   */
  async setFeeOverrides(id: string, change: Partial<Record<FeeMethod, number | null>>): Promise<MerchantEntity> {
    if (Object.keys(change).length === 0) throw new MerchantAccountError('invalid', `give a rate for at least one of ${FEE_METHODS.join(', ')}`);
    const merchant = await this.getMerchant(id);
    const overrides: Record<string, number> = { ...(merchant.feeOverrides ?? {}) };
    for (const [method, rate] of Object.entries(change)) {
      if (rate === null) delete overrides[method];
      else if (rate !== undefined) overrides[method] = rate;
    }
    try {
      // The fee policy's own checks: known methods, whole basis points from 0 to 100 %.
      this.feeScheduleOf({ feeOverrides: overrides });
    } catch (error) {
      if (error instanceof RangeError) throw new MerchantAccountError('invalid', error.message);
      throw error;
    }
    await this.repository.updateMerchant(id, { feeOverrides: Object.keys(overrides).length > 0 ? overrides : null });
    return this.getMerchant(id);
  }

  async setEnabledMethods(id: string, methods: readonly string[]): Promise<MerchantEntity> {
    const unknown = methods.filter((m) => !isPaymentMethod(m));
    if (unknown.length > 0) {
      throw new MerchantAccountError('invalid', `unknown payment method ${unknown.join(', ')}; use ${PAYMENT_METHODS.join(', ')}`);
    }
    if (methods.length === 0) throw new MerchantAccountError('invalid', 'enable at least one payment method');
    // Stored in the canonical order so readers need not sort.
    const enabled = PAYMENT_METHODS.filter((m) => methods.includes(m)) as PaymentMethod[];
    if (!(await this.repository.updateMerchant(id, { enabledMethods: enabled }))) {
      throw new MerchantAccountError('not_found', `no merchant ${id}`);
    }
    return this.getMerchant(id);
  }

  /** A new key; a live key needs a verified merchant. */
  async createKey(merchantId: string, environment: string, name?: string): Promise<CreatedApiKey> {
    if (!isEnvironment(environment)) throw new MerchantAccountError('invalid', `environment must be live or test, not ${environment}`);
    if (name !== undefined && name.length > 100) throw new MerchantAccountError('invalid', 'key name must be at most 100 characters');
    assertMayCreateKey(await this.getMerchant(merchantId), environment);
    return this.insertKey(merchantId, environment, name ?? null);
  }

  /**
   * Revocation reaches every gateway instance within a second (ApiKeyDirectory). Revoking twice keeps the first time.
   * With `owner`, a key of another merchant or environment is not_found and stays as it is.
   */
  async revokeKey(keyId: string, owner?: KeyOwner): Promise<ApiKeyEntity> {
    if (owner) await this.getOwnKey(owner, keyId);
    const key = await this.repository.revokeKey(keyId);
    if (!key) throw new MerchantAccountError('not_found', `no API key ${keyId}`);
    return key;
  }

  /**
   * A new key (same merchant, environment and name) in place of `keyId`, which keeps working until the end of
   * `overlap` and is then refused like a revoked key (within the directory's second on every instance). A
   * revoked or expired key cannot be rolled: nothing is using it. With `owner`, as revokeKey.
   */
  async rollKey(keyId: string, overlap: KeyRollOverlap, owner?: KeyOwner): Promise<RolledApiKey> {
    if (!isKeyRollOverlap(overlap)) throw new MerchantAccountError('invalid', `overlap must be one of ${KEY_ROLL_OVERLAPS.join(', ')}`);
    return this.repository.transaction(async (manager) => {
      const found = await this.repository.findKey(keyId, manager, true);
      const old = owner ? ownedOrNotFound(found, keyId, owner) : found;
      if (!old) throw new MerchantAccountError('not_found', `no API key ${keyId}`);
      const now = new Date();
      if (!apiKeyUsable(old, now)) throw new MerchantAccountError('invalid', `API key ${keyId} is ${apiKeyStatus(old, now)}: create a new key instead`);
      const merchant = await this.repository.findMerchant(old.merchantId, manager);
      if (!merchant) throw new MerchantAccountError('not_found', `no merchant ${old.merchantId}`);
      assertMayCreateKey(merchant, old.environment);
      const created = await this.insertKey(old.merchantId, old.environment, old.name, manager);
      const expiresAt = rolledKeyExpiry(overlap, now, old.expiresAt);
      await this.repository.setKeyExpiry(old.keyId, expiresAt, manager);
      return { ...created, rolled: { ...old, expiresAt } };
    });
  }

  /** The demo merchant (created verified on first use) with a fresh test key: what `npm start` prints. */
  async demo(): Promise<{ merchant: MerchantEntity; testKey: CreatedApiKey }> {
    const existing = await this.repository.findMerchantByEmail(DEMO_MERCHANT.email);
    if (existing) return { merchant: existing, testKey: await this.insertKey(existing.id, 'test', 'Demo test key') };
    try {
      const created = await this.createMerchant({ ...DEMO_MERCHANT, verified: true });
      return { merchant: created.merchant, testKey: created.testKey };
    } catch (error) {
      // Another process created it a moment ago: use that one.
      if (!(error instanceof MerchantAccountError && error.reason === 'conflict')) throw error;
      const merchant = await this.repository.findMerchantByEmail(DEMO_MERCHANT.email);
      if (!merchant) throw error;
      return { merchant, testKey: await this.insertKey(merchant.id, 'test', 'Demo test key') };
    }
  }

  private async insertKey(
    merchantId: string,
    environment: Environment,
    name: string | null,
    manager?: EntityManager,
  ): Promise<CreatedApiKey> {
    const generated = generateApiKey(environment);
    const key = await this.repository.insertKey(
      {
        keyId: generated.keyId,
        merchantId,
        environment,
        secretHash: hashSecret(generated.secret),
        name,
        lastUsedAt: null,
        revokedAt: null,
        expiresAt: null,
      },
      manager,
    );
    return { key, token: generated.token };
  }
}

/** Live keys need a verified merchant; test keys work from the first minute. */
function assertMayCreateKey(merchant: MerchantEntity, environment: Environment): void {
  if (environment === 'live' && merchant.verificationStatus !== 'verified') {
    throw new MerchantAccountError(
      'not_verified',
      `merchant ${merchant.id} is ${merchant.verificationStatus}: live keys need a verified account (merchant verify --id ${merchant.id})`,
    );
  }
}

function ownedOrNotFound(key: ApiKeyEntity | null, keyId: string, owner: KeyOwner): ApiKeyEntity {
  if (!key || key.merchantId !== owner.merchantId || key.environment !== owner.environment) {
    throw new MerchantAccountError('not_found', `no API key ${keyId}`);
  }
  return key;
}

function isUniqueViolation(error: unknown): boolean {
  return postgresErrorCode(error) === '23505';
}
