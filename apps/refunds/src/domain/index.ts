export { isSameRefundRequest, paymentStatus, RefundRefused, settlementOf } from './refund-policy';
