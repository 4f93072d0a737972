// Exact money: USD amounts as integer cents parsed from and formatted to the spec's decimal strings; the fee policy.
export {
  formatMoney,
  MAX_AMOUNT_CENTS,
  MAX_PAYMENT_CENTS,
  MIN_AMOUNT_CENTS,
  MONEY_STRING_PATTERN,
  parseMoneyString,
  type MoneyBounds,
  type MoneyParseErrorReason,
  type MoneyParseResult,
} from './money-string';
export {
  computeFee,
  computeNet,
  DEFAULT_FEE_SCHEDULE,
  FEE_METHODS,
  feeFor,
  feeSchedule,
  isFeeMethod,
  merchantFeeSchedule,
  parseFeeSchedule,
  type FeeBreakdown,
  type FeeMethod,
  type FeeSchedule,
} from './fee-policy';
