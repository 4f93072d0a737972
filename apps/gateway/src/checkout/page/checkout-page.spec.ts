import { renderCheckout, type PageContext } from './checkout-page';
import type { SessionSummary } from './checkout-view';

const summary: SessionSummary = {
  id: 'pi_live_1',
  merchantName: 'Corner Shop',
  amount: '25.00',
  currency: 'USD',
  description: null,
  reference: '7250000000000000001',
  expiresAt: '2030-01-01T00:00:00.000Z',
  crypto: null,
  late: false,
};
const ctx: PageContext = { lang: 'en', nonce: 'n0nce', path: '/checkout/pi_live_1', now: new Date('2029-12-31T23:50:00.000Z'), attempt: 'a1' };

describe('checkout page', () => {
  it('says on the receipt when a payment arrived after the link expired, in both languages', () => {
    expect(renderCheckout({ page: 'paid', summary }, ctx)).not.toContain('after the link had expired');
    expect(renderCheckout({ page: 'paid', summary: { ...summary, late: true } }, ctx)).toContain(
      'This payment arrived after the link had expired. It has been recorded and Corner Shop has been told.',
    );
    expect(renderCheckout({ page: 'paid', summary: { ...summary, late: true } }, { ...ctx, lang: 'ar' })).toContain('وصلت هذه الدفعة بعد انتهاء صلاحية الرابط');
  });

  it('live: a provider button where a provider takes the method, "not available yet" elsewhere, no sandboxes', () => {
    const page = renderCheckout(
      { page: 'pay', summary, test: false, methods: ['togo', 'lahza'], providerMethods: ['lahza'], notice: null, cancellable: true, cryptoTransfers: true },
      ctx,
    );
    expect(page).toContain('Togo balance: not available yet');
    expect(page).toContain('<input type="hidden" name="provider" value="1">');
    expect(page).not.toContain('name="outcome"');
  });

  it('test: the crypto sandbox sends part or more of what is due to an intent only (an invoice is paid whole)', () => {
    const view = { page: 'pay' as const, summary, test: true, methods: ['crypto'], providerMethods: [], notice: null, cancellable: true };
    expect(renderCheckout({ ...view, cryptoTransfers: true }, ctx)).toContain('name="send" value="under"');
    const invoicePage = renderCheckout({ ...view, cryptoTransfers: false }, ctx);
    expect(invoicePage).not.toContain('name="send"');
    expect(invoicePage).toContain('name="outcome" value="succeed"');
  });

  it('while a payment is confirmed: a way back to the provider, and a nonced script that looks again', () => {
    const page = renderCheckout({ page: 'processing', summary, continueWith: 'lahza' }, ctx);
    expect(page).toContain('Continue the payment');
    expect(page).toContain('<script nonce="n0nce">setTimeout(()=>location.reload(),5000);</script>');
    expect(renderCheckout({ page: 'processing', summary, continueWith: null }, ctx)).not.toContain('Continue the payment');
  });
});
