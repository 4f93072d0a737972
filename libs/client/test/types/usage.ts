// Compiled by test/types.int-spec.ts: correct calls compile, mistakes a merchant makes do not.
import { Payments, type PaymentIntent } from '../../src';

const payments = new Payments({ apiKey: 'pay_test_key.secret' });

export async function correct(): Promise<PaymentIntent> {
  const intent = await payments.paymentIntents.create({ amount: '74.00', currency: 'USD', description: 'Order 1', customer: { country: 'PS' } });
  await payments.refunds.create('1234', { amount: '10.00' });
  for await (const payment of payments.payments.list({ limit: 100 })) void payment.refunded_amount.toUpperCase();
  return intent;
}

export async function mistakes(): Promise<void> {
  // A misspelt field.
  // @ts-expect-error descripton is not a field of a payment intent
  await payments.paymentIntents.create({ amount: '74.00', currency: 'USD', descripton: 'Order 1' });
  // Money is a decimal string, never a number.
  // @ts-expect-error amount is a MoneyString
  await payments.paymentIntents.create({ amount: 74, currency: 'USD' });
  // @ts-expect-error a refund amount is a MoneyString
  await payments.refunds.create('1234', { amount: 10.5 });
  // Only USD.
  // @ts-expect-error currency is "USD"
  await payments.paymentIntents.create({ amount: '74.00', currency: 'EUR' });
  const intent = await payments.paymentIntents.retrieve('pi_test_x');
  // @ts-expect-error a MoneyString is not a number
  const cents: number = intent.amount;
  void cents;
}
