import type { Environment } from '@payments/ids';
import { formatMoney, MAX_AMOUNT_CENTS, parseMoneyString } from '@payments/money';
import { randomInt } from 'node:crypto';
import { bookAdjustment } from '../domain';
import type { JournalRepository, StoredPosting } from '../journal/journal.repository';

/** A refusal the operator can act on (printed as it is, exit code 1). */
export class AdjustmentError extends Error {}

/** "-12.34" or "5" → signed cents; zero and more than two decimals are refused. */
export function parseSignedAmount(value: string): number {
  const negative = value.startsWith('-');
  const parsed = parseMoneyString(negative ? value.slice(1) : value, { minCents: 1, maxCents: MAX_AMOUNT_CENTS });
  if (!parsed.ok) throw new AdjustmentError(`--amount ${parsed.message}, optionally negative (e.g. -12.34)`);
  return negative ? -parsed.cents : parsed.cents;
}

/**
 * Posts an operator's adjustment once per key: the same key again answers the posting it made; the same key with a
 * different merchant, environment, amount or reason is refused rather than taken for a new adjustment.
 */
export async function adjust(
  journal: JournalRepository,
  input: { merchantId: string; environment: Environment; amount: string; reason: string; key: string },
): Promise<{ posting: StoredPosting; created: boolean; availableCents: bigint }> {
  if (input.reason.trim() === '') throw new AdjustmentError('--reason must say why');
  if (input.key.trim() === '') throw new AdjustmentError('--key must not be empty: the same key never posts twice');
  const posting = bookAdjustment({
    key: input.key,
    merchantId: input.merchantId,
    environment: input.environment,
    amountCents: parseSignedAmount(input.amount),
    reason: input.reason,
    occurredAt: new Date().toISOString(),
  });
  // An adjustment is not a Kafka partition's writer: any shard of the hot accounts will do.
  const created = await journal.dataSource.transaction((manager) => journal.post(manager, posting, randomInt(1_000_000)));
  const stored = (await journal.findPosting(posting.id))!;
  if (!created && (stored.amountCents !== BigInt(posting.amountCents) || stored.description !== posting.description)) {
    throw new AdjustmentError(
      `--key ${input.key} was used for another adjustment (${formatMoney(stored.amountCents)}, "${stored.description}"): use a new key`,
    );
  }
  return { posting: stored, created, availableCents: await journal.availableCents(input.merchantId, input.environment) };
}
