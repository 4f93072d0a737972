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

  /** Identity-verification details as the merchant last submitted them (null before a submission). */
  @Column({ name: 'business_name', type: 'text', nullable: true })
  businessName!: string | null;

  /** ISO 3166-1 alpha-2. */
  @Column({ type: 'text', nullable: true })
  country!: string | null;

  @Column({ name: 'owner_name', type: 'text', nullable: true })
  ownerName!: string | null;

  /** A phone number or an e-mail address. */
  @Column({ type: 'text', nullable: true })
  contact!: string | null;

  @Column({ name: 'verification_submitted_at', type: 'timestamptz', nullable: true })
  verificationSubmittedAt!: Date | null;

  @Column({ name: 'verification_decided_at', type: 'timestamptz', nullable: true })
  verificationDecidedAt!: Date | null;

  /** Set exactly while the status is `rejected`: what the merchant reads and fixes before submitting again. */
  @Column({ name: 'rejection_reason', type: 'text', nullable: true })
  rejectionReason!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
