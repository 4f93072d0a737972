import { DataSource, EntityManager, IsNull, Repository } from 'typeorm';
import { MerchantEntity } from '../merchants/merchant.entity';
import type { TokenPurpose } from './account-tokens';
import { LOCK_AFTER_FAILURES } from './lockout';
import { RecoveryCodeEntity } from './recovery-code.entity';
import type { Role } from './roles';
import { UserTokenEntity } from './user-token.entity';
import { UserEntity } from './user.entity';

export type NewUser = Omit<UserEntity, 'createdAt' | 'failedLogins' | 'lockedAt' | 'sessionEpoch' | 'totpSecret' | 'totpEnabledAt' | 'totpLastStep' | 'lastLoginAt'>;
export type NewToken = Omit<UserTokenEntity, 'createdAt' | 'usedAt'>;

export interface SessionUserRow {
  id: string;
  email: string;
  role: Role;
  merchant_id: string;
  session_epoch: number;
  totp_enabled: boolean;
  merchant_name: string;
  verification_status: MerchantEntity['verificationStatus'];
  rejection_reason: string | null;
}

/** Every query on users, their mailed-link tokens and recovery codes. */
export class AccountsRepository {
  constructor(private readonly dataSource: DataSource) {}

  private users(manager: EntityManager = this.dataSource.manager): Repository<UserEntity> {
    return manager.getRepository(UserEntity);
  }

  private tokens(manager: EntityManager = this.dataSource.manager): Repository<UserTokenEntity> {
    return manager.getRepository(UserTokenEntity);
  }

  private codes(manager: EntityManager = this.dataSource.manager): Repository<RecoveryCodeEntity> {
    return manager.getRepository(RecoveryCodeEntity);
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  findUser(id: string, manager?: EntityManager): Promise<UserEntity | null> {
    return this.users(manager).findOneBy({ id });
  }

  findUserByEmail(email: string, manager?: EntityManager): Promise<UserEntity | null> {
    return this.users(manager).createQueryBuilder('u').where('lower(u.email) = lower(:email)', { email: email.trim() }).getOne();
  }

  /**
   * What a signed-in page checks on every request, in one statement and one round trip (a join, no entity
   * hydration): who the user is now (role, epoch) and their merchant's name and verification.
   */
  async findSessionUser(id: string): Promise<SessionUserRow | null> {
    const users = this.dataSource.getMetadata(UserEntity).tablePath;
    const merchants = this.dataSource.getMetadata(MerchantEntity).tablePath;
    const rows = (await this.dataSource.query(
      `SELECT u.id, u.email, u.role, u.merchant_id, u.session_epoch, u.totp_enabled_at IS NOT NULL AS totp_enabled,
              m.name AS merchant_name, m.verification_status, m.rejection_reason
         FROM ${users} u JOIN ${merchants} m ON m.id = u.merchant_id WHERE u.id = $1`,
      [id],
    )) as SessionUserRow[];
    return rows[0] ?? null;
  }

  async insertUser(user: NewUser, manager?: EntityManager): Promise<UserEntity> {
    await this.users(manager).insert(user);
    return (await this.findUser(user.id, manager))!;
  }

  async updateUser(
    id: string,
    changes: Partial<Pick<UserEntity, 'passwordHash' | 'role' | 'emailConfirmedAt' | 'failedLogins' | 'lockedAt' | 'totpSecret' | 'totpEnabledAt' | 'totpLastStep' | 'lastLoginAt'>>,
    manager?: EntityManager,
  ): Promise<boolean> {
    const result = await this.users(manager).update({ id }, changes);
    return (result.affected ?? 0) > 0;
  }

  /**
   * One more failed sign-in, counted in the UPDATE itself (concurrent failures each count once); the user is locked
   * when the count reaches the threshold. The count after this failure, or null for no such user.
   */
  async recordFailedLogin(id: string, now: Date): Promise<number | null> {
    const result = await this.users()
      .createQueryBuilder()
      .update()
      .set({
        failedLogins: () => 'failed_logins + 1',
        lockedAt: () => `CASE WHEN failed_logins + 1 >= ${LOCK_AFTER_FAILURES} THEN coalesce(locked_at, :now) ELSE locked_at END`,
      })
      .where('id = :id', { id })
      .setParameters({ now })
      .returning('failed_logins')
      .execute();
    const row = (result.raw as Array<{ failed_logins: number }>)[0];
    return row ? row.failed_logins : null;
  }

  async recordLogin(id: string, now: Date): Promise<void> {
    await this.users().update({ id }, { failedLogins: 0, lastLoginAt: now });
  }

  /** Ends every session of the user (they carry the old epoch); the new epoch, or null for no such user. */
  async bumpSessionEpoch(id: string, manager?: EntityManager): Promise<number | null> {
    const result = await this.users(manager)
      .createQueryBuilder()
      .update()
      .set({ sessionEpoch: () => 'session_epoch + 1' })
      .where('id = :id', { id })
      .returning('session_epoch')
      .execute();
    const row = (result.raw as Array<{ session_epoch: number }>)[0];
    return row ? row.session_epoch : null;
  }

  /** Records a TOTP code's time step as used, only if it is later than the last one: of two racing uses, one wins. */
  async claimTotpStep(id: string, step: number): Promise<boolean> {
    const result = await this.users()
      .createQueryBuilder()
      .update()
      .set({ totpLastStep: step })
      .where('id = :id', { id })
      .andWhere('(totp_last_step IS NULL OR totp_last_step < :step)', { step })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  listUsers(merchantId: string): Promise<UserEntity[]> {
    return this.users().find({ where: { merchantId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /**
   * Locks the merchant's owners in the caller's transaction and returns their ids: two owners demoting or removing
   * each other at once are serialized, so the last owner always stays.
   */
  async lockOwners(merchantId: string, manager: EntityManager): Promise<string[]> {
    const owners = await this.users(manager)
      .createQueryBuilder('u')
      .select('u.id')
      .where('u.merchant_id = :merchantId AND u.role = :role', { merchantId, role: 'owner' satisfies Role })
      .orderBy('u.id')
      .setLock('pessimistic_write')
      .getMany();
    return owners.map((owner) => owner.id);
  }

  async deleteUser(id: string, manager?: EntityManager): Promise<void> {
    await this.users(manager).delete({ id });
  }

  /** When the user's links of `purpose` were created since `since`, after locking the user's row for the caller's transaction. */
  async linksSentSince(userId: string, purpose: TokenPurpose, since: Date, manager: EntityManager): Promise<Date[]> {
    await manager.getRepository(UserEntity).createQueryBuilder('u').setLock('pessimistic_write').where('u.id = :userId', { userId }).getOne();
    const tokens = await manager
      .getRepository(UserTokenEntity)
      .createQueryBuilder('t')
      .select('t.createdAt')
      .where('t.userId = :userId AND t.purpose = :purpose AND t.createdAt >= :since', { userId, purpose, since })
      .getMany();
    return tokens.map((t) => t.createdAt);
  }

  async insertToken(token: NewToken, manager?: EntityManager): Promise<void> {
    await this.tokens(manager).insert(token);
  }

  findToken(tokenHash: string, manager?: EntityManager): Promise<UserTokenEntity | null> {
    return this.tokens(manager).findOneBy({ tokenHash });
  }

  /** Marks the token used if it is unused, unexpired and for `purpose`, in one statement (a link works once). */
  async useToken(tokenHash: string, purpose: TokenPurpose, now: Date, manager?: EntityManager): Promise<UserTokenEntity | null> {
    const result = await this.tokens(manager)
      .createQueryBuilder()
      .update()
      .set({ usedAt: now })
      .where('token_hash = :tokenHash AND purpose = :purpose AND used_at IS NULL AND expires_at > :now', { tokenHash, purpose, now })
      .execute();
    return (result.affected ?? 0) > 0 ? this.findToken(tokenHash, manager) : null;
  }

  /** Ends a user's other links of one purpose (an old reset link must not work after the password changed). */
  async useAllTokens(userId: string, purpose: TokenPurpose, now: Date, manager?: EntityManager): Promise<void> {
    await this.tokens(manager).update({ userId, purpose, usedAt: IsNull() }, { usedAt: now });
  }

  /** Invitations of a merchant not yet accepted, expired or cancelled. */
  listOpenInvitations(merchantId: string, now: Date): Promise<UserTokenEntity[]> {
    return this.tokens()
      .createQueryBuilder('t')
      .where(`t.merchant_id = :merchantId AND t.purpose = 'invitation' AND t.used_at IS NULL AND t.expires_at > :now`, { merchantId, now })
      .orderBy('t.created_at', 'ASC')
      .getMany();
  }

  /** Ends the open invitations to an address at a merchant (inviting again replaces the link). */
  async cancelInvitations(merchantId: string, email: string, now: Date, manager?: EntityManager): Promise<number> {
    const result = await this.tokens(manager)
      .createQueryBuilder()
      .update()
      .set({ usedAt: now })
      .where(`merchant_id = :merchantId AND purpose = 'invitation' AND used_at IS NULL AND lower(email) = lower(:email)`, { merchantId, email })
      .execute();
    return result.affected ?? 0;
  }

  /** Replaces all of a user's recovery codes. */
  async replaceRecoveryCodes(userId: string, codeHashes: string[], manager: EntityManager): Promise<void> {
    await this.codes(manager).delete({ userId });
    if (codeHashes.length > 0) await this.codes(manager).insert(codeHashes.map((codeHash) => ({ userId, codeHash, usedAt: null })));
  }

  /** Uses a recovery code once: of two racing uses of one code, one succeeds. */
  async useRecoveryCode(userId: string, codeHash: string, now: Date): Promise<boolean> {
    const result = await this.codes().update({ userId, codeHash, usedAt: IsNull() }, { usedAt: now });
    return (result.affected ?? 0) > 0;
  }

  async unusedRecoveryCodes(userId: string): Promise<number> {
    return this.codes().countBy({ userId, usedAt: IsNull() });
  }
}
