export { merchantAccount, platformAccount, shownBalance, type Account, type MerchantAccountKind, type PlatformAccountKind } from './accounts';
export { journalEntries, postingId, shownAmountCents, type Entry, type Posting, type PostingKind } from './posting';
export { bookAdjustment, bookPayment, bookRefund, BookingRefused, type PaymentBooking } from './bookings';
