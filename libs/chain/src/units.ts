// Stablecoin amounts: 1 token = 1 USD, so a token's smallest units convert to cents by a power of ten, exactly
// (bigint only; 18 decimals overflow every float).
import { ConfigError } from '@payments/config';

/** Decimals a token may have: at least 2 (a cent must be a whole number of units); 77 keeps 10^d inside uint256. */
export const MIN_TOKEN_DECIMALS = 2;
export const MAX_TOKEN_DECIMALS = 77;

function unitsPerCent(decimals: number): bigint {
  if (!Number.isInteger(decimals) || decimals < MIN_TOKEN_DECIMALS || decimals > MAX_TOKEN_DECIMALS) {
    throw new ConfigError([`token decimals must be an integer from ${MIN_TOKEN_DECIMALS} to ${MAX_TOKEN_DECIMALS} (got ${decimals})`]);
  }
  return 10n ** BigInt(decimals - 2);
}

/** Whole cents in `units` (floored) and the sub-cent rest (dust), which is never counted as paid. */
export function tokenUnitsToCents(units: bigint, decimals: number): { cents: bigint; dust: bigint } {
  if (units < 0n) throw new RangeError(`token units cannot be negative (got ${units})`);
  const per = unitsPerCent(decimals);
  return { cents: units / per, dust: units % per };
}

/** The token units that pay exactly `cents`. */
export function centsToTokenUnits(cents: bigint, decimals: number): bigint {
  if (cents < 0n) throw new RangeError(`cents cannot be negative (got ${cents})`);
  return cents * unitsPerCent(decimals);
}
