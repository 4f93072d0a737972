export { merchantAccount, platformAccount, shownBalance, walletAccount, WALLET_ACCOUNT_SUFFIX, type Account, type MerchantAccountKind, type PlatformAccountKind } from './accounts';
export { journalEntries, MERCHANT_POSTING_KINDS, postingId, shownAmountCents, type Entry, type Posting, type PostingKind } from './posting';
export { bookAdjustment, bookPayment, bookRefund, BookingRefused, checkedPaymentAmounts, type PaymentAmounts, type PaymentBooking } from './bookings';
export {
  bookWalletCredit,
  bookWalletPayment,
  bookWalletTopUp,
  walletCovers,
  walletInEnvironment,
  walletShownCents,
  walletTransactionType,
  type WalletPayment,
  type WalletPaymentOutcome,
  type WalletTransactionKind,
} from './wallets';
