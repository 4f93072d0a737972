import type { EndpointDisabledReason } from '@payments/events';
import type { Environment } from '@payments/ids';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { WebhookEndpointStatus } from './webhook-endpoint.model';

/** A merchant's webhook endpoint (one environment). Timestamps are written by the gateway, like the events. */
@Entity({ name: 'webhook_endpoints' })
export class WebhookEndpointEntity {
  /** `we_` + 24 base62 characters. */
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ name: 'merchant_id', type: 'text' })
  merchantId!: string;

  @Column({ type: 'text' })
  environment!: Environment;

  @Column({ type: 'text' })
  url!: string;

  /** Null = every public event type. */
  @Column({ type: 'text', array: true, nullable: true })
  events!: string[] | null;

  @Column({ type: 'text' })
  status!: WebhookEndpointStatus;

  @Column({ name: 'secret_encrypted', type: 'text' })
  secretEncrypted!: string;

  @Column({ name: 'previous_secret_encrypted', type: 'text', nullable: true })
  previousSecretEncrypted!: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt!: Date | null;

  @Column({ type: 'integer' })
  version!: number;

  /** Set while the webhook-dispatcher keeps the endpoint disabled on its own; cleared by enabling it. */
  @Column({ name: 'disabled_reason', type: 'text', nullable: true })
  disabledReason!: EndpointDisabledReason | null;

  @Column({ name: 'disabled_at', type: 'timestamptz', nullable: true })
  disabledAt!: Date | null;

  /** The Idempotency-Key of the creating request: one endpoint per (merchant, environment, key). */
  @Column({ name: 'idempotency_key', type: 'text', nullable: true })
  idempotencyKey!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
