import type { Environment } from '@payments/ids';
import type { FeeMethod } from '@payments/money';
import { DataSource, EntityManager, IsNull, Repository } from 'typeorm';
import { ApiKeyEntity } from './api-key.entity';
import { MerchantEntity } from './merchant.entity';
import type { PaymentMethod } from './payment-methods';
import type { VerificationStatus } from './verification-status';

/** The verification columns a step writes. */
export type VerificationChange = Partial<
  Pick<
    MerchantEntity,
    'businessName' | 'country' | 'ownerName' | 'contact' | 'verificationSubmittedAt' | 'verificationDecidedAt' | 'rejectionReason'
  >
> & { verificationStatus: VerificationStatus };

/** Every query on merchants and API keys. */
export class MerchantsRepository {
  constructor(private readonly dataSource: DataSource) {}

  private merchants(manager: EntityManager = this.dataSource.manager): Repository<MerchantEntity> {
    return manager.getRepository(MerchantEntity);
  }

  private keys(manager: EntityManager = this.dataSource.manager): Repository<ApiKeyEntity> {
    return manager.getRepository(ApiKeyEntity);
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  findMerchant(id: string, manager?: EntityManager): Promise<MerchantEntity | null> {
    return this.merchants(manager).findOneBy({ id });
  }

  findMerchantByEmail(email: string, manager?: EntityManager): Promise<MerchantEntity | null> {
    return this.merchants(manager)
      .createQueryBuilder('m')
      .where('lower(m.email) = lower(:email)', { email })
      .getOne();
  }

  async insertMerchant(merchant: Omit<MerchantEntity, 'createdAt'>, manager?: EntityManager): Promise<MerchantEntity> {
    await this.merchants(manager).insert(merchant);
    return (await this.findMerchant(merchant.id, manager))!;
  }

  /** Updates the given columns; false when there is no such merchant. */
  async updateMerchant(
    id: string,
    changes: Partial<{
      verificationStatus: VerificationStatus;
      enabledMethods: PaymentMethod[];
      rateLimitLivePerSec: number | null;
      rateLimitTestPerSec: number | null;
      feeOverrides: Partial<Record<FeeMethod, number>> | null;
    }>,
    manager?: EntityManager,
  ): Promise<boolean> {
    const result = await this.merchants(manager).update({ id }, changes);
    return (result.affected ?? 0) > 0;
  }

  /**
   * Moves a merchant's verification on, only from one of `from` (checked in the UPDATE itself, so two steps at
   * once cannot both pass). False when the merchant is not in one of those statuses (or does not exist).
   */
  async transitionVerification(id: string, from: readonly VerificationStatus[], change: VerificationChange, manager?: EntityManager): Promise<boolean> {
    const result = await this.merchants(manager)
      .createQueryBuilder()
      .update()
      .set(change)
      .where('id = :id', { id })
      .andWhere('verification_status IN (:...from)', { from })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  async insertKey(key: Omit<ApiKeyEntity, 'createdAt' | 'merchant'>, manager?: EntityManager): Promise<ApiKeyEntity> {
    await this.keys(manager).insert(key);
    return (await this.keys(manager).findOneBy({ keyId: key.keyId }))!;
  }

  /** The key with its merchant, revoked or not (the caller decides what a revoked key means). */
  findKeyWithMerchant(keyId: string): Promise<ApiKeyEntity | null> {
    return this.keys().findOne({ where: { keyId }, relations: { merchant: true } });
  }

  /** A merchant's keys, oldest first; of one environment when given. */
  listKeys(merchantId: string, environment?: Environment): Promise<ApiKeyEntity[]> {
    return this.keys().find({ where: environment ? { merchantId, environment } : { merchantId }, order: { createdAt: 'ASC' } });
  }

  /** The key, locked for the caller's transaction when `forUpdate` (a roll must not race a revoke or another roll). */
  findKey(keyId: string, manager?: EntityManager, forUpdate = false): Promise<ApiKeyEntity | null> {
    return this.keys(manager).findOne({ where: { keyId }, ...(forUpdate ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
  }

  async setKeyExpiry(keyId: string, expiresAt: Date, manager?: EntityManager): Promise<void> {
    await this.keys(manager).update({ keyId }, { expiresAt });
  }

  /** Sets revoked_at once; revoking again keeps the first time. Null when there is no such key. */
  async revokeKey(keyId: string): Promise<ApiKeyEntity | null> {
    await this.keys().update({ keyId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
    return this.keys().findOneBy({ keyId });
  }

  /** Records a use, unless another instance already did within the last minute. */
  async touchKey(keyId: string): Promise<void> {
    await this.keys()
      .createQueryBuilder()
      .update()
      .set({ lastUsedAt: () => 'now()' })
      .where('key_id = :keyId', { keyId })
      .andWhere(`(last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`)
      .execute();
  }
}
