import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** One of a user's ten recovery codes (SHA-256 only): signs in once in place of a TOTP code. */
@Entity({ name: 'recovery_codes' })
export class RecoveryCodeEntity {
  @PrimaryColumn({ name: 'user_id', type: 'text' })
  userId!: string;

  @PrimaryColumn({ name: 'code_hash', type: 'text' })
  codeHash!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt!: Date | null;
}
