import type { FeeMethod } from '@payments/money';
import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { PaymentMethod } from './payment-methods';
import type { VerificationStatus } from './verification-status';

/** A merchant account. Limits and fees left null follow the operator's defaults. */
@Entity({ name: 'merchants' })
export class MerchantEntity {
  /** `acct_` + 24 base62 characters. */
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  email!: string;

  @Column({ name: 'verification_status', type: 'text' })
  verificationStatus!: VerificationStatus;

  @Column({ name: 'enabled_methods', type: 'text', array: true })
  enabledMethods!: PaymentMethod[];

  @Column({ name: 'rate_limit_live_per_sec', type: 'integer', nullable: true })
  rateLimitLivePerSec!: number | null;

  @Column({ name: 'rate_limit_test_per_sec', type: 'integer', nullable: true })
  rateLimitTestPerSec!: number | null;

  /** Fee rates in basis points per method, merged over the fee schedule. */
  @Column({ name: 'fee_overrides', type: 'jsonb', nullable: true })
  feeOverrides!: Partial<Record<FeeMethod, number>> | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
