import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { TokenPurpose } from './account-tokens';
import type { Role } from './roles';

/** A link mailed to someone: only the SHA-256 of its token is stored; used once, before it expires. */
@Entity({ name: 'user_tokens' })
export class UserTokenEntity {
  @PrimaryColumn({ name: 'token_hash', type: 'text' })
  tokenHash!: string;

  @Column({ type: 'text' })
  purpose!: TokenPurpose;

  /** The user it is for; null for an invitation (no user yet). */
  @Column({ name: 'user_id', type: 'text', nullable: true })
  userId!: string | null;

  /** Invitations: the merchant, address and role of the user to be, and who invited. */
  @Column({ name: 'merchant_id', type: 'text', nullable: true })
  merchantId!: string | null;

  @Column({ type: 'text', nullable: true })
  email!: string | null;

  @Column({ type: 'text', nullable: true })
  role!: Role | null;

  @Column({ name: 'invited_by', type: 'text', nullable: true })
  invitedBy!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt!: Date | null;
}
