import type { CheckoutCryptoOption, InvoiceResource, PaymentIntentResource } from '@payments/contracts';
import type { PaymentProviders } from '../providers/payment-providers';
import { CheckoutHandlers } from './checkout.handlers';

const scope = { merchantId: 'acct_1', environment: 'test' as const };
const USDT: CheckoutCryptoOption = { network: 'anvil', chain_id: 31337, confirmations: 3, symbol: 'USDT', token: '0x5FbDB2315678afecb367f032d93F642f64180aa3', decimals: 6 };

function handlers(options: (environment: 'test' | 'live') => CheckoutCryptoOption[]): CheckoutHandlers {
  const kind = <R>(prefix: string) => ({
    owner: async (id: string) => (id.startsWith(prefix) ? scope : null),
    get: async (_scope: unknown, id: string) => ({ id }) as unknown as R,
  });
  return new CheckoutHandlers(
    kind<PaymentIntentResource>('pi_'),
    kind<InvoiceResource>('inv_'),
    async () => ({ successUrl: null, cancelUrl: null, methods: ['togo', 'crypto'] }),
    { methodsIn: () => [] } as unknown as PaymentProviders,
    options,
  );
}

describe('checkout.get: the crypto choices', () => {
  it('an intent gets the networks + tokens of its environment; an invoice none (no deposit address for invoices yet)', async () => {
    const asked: string[] = [];
    const checkout = handlers((environment) => (asked.push(environment), [USDT]));
    expect(await checkout.get({ id: 'pi_test_1' })).toMatchObject({ kind: 'payment_intent', crypto_options: [USDT] });
    expect(await checkout.get({ id: 'inv_test_1' })).toMatchObject({ kind: 'invoice', crypto_options: [] });
    expect(asked).toEqual(['test']);
  });

  it('none where crypto is not configured', async () => {
    expect(await handlers(() => []).get({ id: 'pi_test_2' })).toMatchObject({ crypto_options: [] });
  });
});
