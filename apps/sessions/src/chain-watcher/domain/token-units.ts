// TEMP until @payments/chain lands (same contract as its tokenUnitsToCents).
export function tokenUnitsToCents(units: bigint, decimals: number): { cents: bigint; dust: bigint } {
  if (decimals < 2) throw new Error('decimals must be at least 2');
  const perCent = 10n ** BigInt(decimals - 2);
  return { cents: units / perCent, dust: units % perCent };
}
