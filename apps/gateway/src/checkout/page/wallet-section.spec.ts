import { MESSAGES } from './messages';
import { checkoutWallet, fillHtml, ltr } from './wallet-section';

const form = { environment: 'test' as const, csrf: 'tok<en>', lang: 'en' as const, returnTo: 'pi_test_abc', from: 'checkout' as const, sessionId: 'pi_test_abc', amount: '40.00 USD', attempt: 'a1' };

describe('the wallet on the checkout', () => {
  it('signed out: the e-mail form posts to the wallet with its token and comes back to this session', () => {
    const out = checkoutWallet(MESSAGES.en, { state: 'signed_out', error: null }, form).value;
    expect(out).toContain('action="/wallet/test/code"');
    expect(out).toContain('name="_csrf" value="tok&lt;en&gt;"');
    expect(out).toContain('name="return_to" value="pi_test_abc"');
    expect(out).toContain('name="from" value="checkout"');
    expect(out).not.toContain('/wallet/pay');
  });

  it('code sent: the address isolated and escaped, the error tied to the field', () => {
    const out = checkoutWallet(MESSAGES.en, { state: 'code_sent', email: '<b>x@y.co</b>', error: 'invalid_code' }, form).value;
    expect(out).toContain('<bdi dir="ltr">&lt;b&gt;x@y.co&lt;/b&gt;</bdi>');
    expect(out).toContain('aria-describedby="wallet-error"');
    expect(out).toContain('That code is not right');
  });

  it('signed in: the balance and the one pay form (token, attempt); short of money, the top-up link back to this session', () => {
    const out = checkoutWallet(MESSAGES.en, { state: 'signed_in', email: 'x@y.co', balance: '10.00', notice: 'insufficient' }, form).value;
    expect(out).toContain('action="/checkout/pi_test_abc/wallet/pay"');
    expect(out).toContain('name="attempt" value="a1-wallet"');
    expect(out).toContain('Pay <bdi dir="ltr">40.00 USD</bdi> from your wallet');
    expect(out).toContain('href="/wallet/test?return_to=pi_test_abc#top-up"');
    expect(out).toContain('role="alert"');
  });
});

describe('fillHtml', () => {
  it('escapes the template and keeps the values as given', () => {
    expect(fillHtml('a <{x}> & {y}', { x: ltr('1') }).value).toBe('a &lt;<bdi dir="ltr">1</bdi>&gt; &amp; {y}');
  });
});
