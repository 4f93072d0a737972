import type { Environment } from '@payments/ids';
import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { MerchantEntity } from './merchant.entity';

/** An API key: only the SHA-256 of its secret is stored; the whole key is shown once at creation. */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  /** The id part of `pay_<env>_<key id>.<secret>`. */
  @PrimaryColumn({ name: 'key_id', type: 'text' })
  keyId!: string;

  @Column({ name: 'merchant_id', type: 'text' })
  merchantId!: string;

  @ManyToOne(() => MerchantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'merchant_id' })
  merchant?: MerchantEntity;

  @Column({ type: 'text' })
  environment!: Environment;

  /** Lowercase hex SHA-256 of the secret. */
  @Column({ name: 'secret_hash', type: 'text' })
  secretHash!: string;

  @Column({ type: 'text', nullable: true })
  name!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** Written lazily (at most about once a minute per key), so it is "last seen", not an audit trail. */
  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  /** Set by a roll: the key keeps working until then (the overlap), and is refused like a revoked key after. */
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;
}
