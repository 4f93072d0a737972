export { paymentStatus, RefundRefused, settlementOf } from './refund-policy';
