import { Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { MerchantsRepository } from '../merchants/merchants.repository';

const INTERVAL_MS = 60000;

/**
 * Keeps api_keys.last_used_at roughly current without a write per request: at most one write a minute per key
 * and instance, and the write itself skips rows another instance touched within the minute. Never delays the
 * request it is called from.
 */
export class KeyUsageTracker {
  private readonly logger = new Logger('KeyUsageTracker');
  private readonly lastWrite = new LRUCache<string, number>({ max: 50000 });

  constructor(private readonly repository: MerchantsRepository) {}

  used(keyId: string, storedLastUsedAt: Date | null, now = Date.now()): void {
    if (storedLastUsedAt && now - storedLastUsedAt.getTime() < INTERVAL_MS) return;
    const last = this.lastWrite.get(keyId);
    if (last !== undefined && now - last < INTERVAL_MS) return;
    this.lastWrite.set(keyId, now);
    this.repository.touchKey(keyId).catch((error: unknown) => {
      this.lastWrite.delete(keyId);
      this.logger.warn({ err: error, key_id: keyId }, 'could not record API key use');
    });
  }
}
