import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { Role } from './roles';

export type MailLanguage = 'en' | 'ar';

/** A person who signs in to the dashboard for one merchant. */
@Entity({ name: 'users' })
export class UserEntity {
  /** `usr_` + 24 base62 characters. */
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ name: 'merchant_id', type: 'text' })
  merchantId!: string;

  /** As typed at sign-up; unique whatever its case. */
  @Column({ type: 'text' })
  email!: string;

  /** argon2id (PHC string: algorithm, parameters, salt and hash). */
  @Column({ name: 'password_hash', type: 'text' })
  passwordHash!: string;

  @Column({ type: 'text' })
  role!: Role;

  /** The language of the mails the user gets. */
  @Column({ type: 'text' })
  language!: MailLanguage;

  @Column({ name: 'email_confirmed_at', type: 'timestamptz', nullable: true })
  emailConfirmedAt!: Date | null;

  /** Consecutive failed sign-ins; back to 0 on success, unlock or password reset. */
  @Column({ name: 'failed_logins', type: 'integer' })
  failedLogins!: number;

  @Column({ name: 'locked_at', type: 'timestamptz', nullable: true })
  lockedAt!: Date | null;

  /** Sessions carry the epoch they started in; bumping it ends them all. */
  @Column({ name: 'session_epoch', type: 'integer' })
  sessionEpoch!: number;

  /** Encrypted (TotpSecrets); present from beginTotp, in use once totpEnabledAt is set. Never shown again. */
  @Column({ name: 'totp_secret', type: 'text', nullable: true })
  totpSecret!: string | null;

  @Column({ name: 'totp_enabled_at', type: 'timestamptz', nullable: true })
  totpEnabledAt!: Date | null;

  /** The time step of the last code accepted: no code of that step or before is accepted again. */
  @Column({ name: 'totp_last_step', type: 'bigint', nullable: true, transformer: { to: (v: number | null) => v, from: (v: string | null) => (v === null ? null : Number(v)) } })
  totpLastStep!: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'last_login_at', type: 'timestamptz', nullable: true })
  lastLoginAt!: Date | null;
}
