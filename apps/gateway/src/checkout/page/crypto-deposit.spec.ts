import { create as createQr } from 'qrcode';
import { renderCheckout, type PageContext } from './checkout-page';
import type { SessionSummary } from './checkout-view';
import { eip681Uri, formatTokenUnits, qrSvg, type CryptoOption } from './crypto-deposit';

const USDT: CryptoOption = { chainId: 31337, network: 'anvil', symbol: 'USDT', token: '0x5FbDB2315678afecb367f032d93F642f64180aa3', decimals: 6, confirmations: 3 };
const DAI: CryptoOption = { chainId: 31337, network: 'anvil', symbol: 'DAI', token: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512', decimals: 18, confirmations: 3 };
const ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const summary: SessionSummary = {
  id: 'pi_live_1',
  merchantName: 'Corner Shop',
  amount: '25.00',
  currency: 'USD',
  description: null,
  reference: null,
  expiresAt: '2030-01-01T00:00:00.000Z',
  crypto: null,
  late: false,
};
const ctx: PageContext = { lang: 'en', nonce: 'n0nce', path: '/checkout/pi_live_1', now: new Date('2029-12-31T23:50:00.000Z'), attempt: 'a1' };
const href = (o: CryptoOption) => `/checkout/pi_live_1/crypto?network=${o.chainId}&token=${o.token}`;

/** The dark cells the SVG path draws (one `M x y h w v1 h-w z` per run, after a 4-module quiet zone). */
function drawnCells(svg: string): Set<string> {
  const d = /<path fill="#000" d="([^"]*)"/.exec(svg)![1]!;
  const cells = new Set<string>();
  for (const [, x, y, w] of d.matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g)) {
    for (let i = 0; i < Number(w); i++) cells.add(`${Number(x) - 4 + i},${Number(y) - 4}`);
  }
  return cells;
}

describe('crypto deposit page', () => {
  it('shows token units as an exact decimal of the token (6 and 18 decimals), never through a float', () => {
    expect(formatTokenUnits(25_000_000n, 6)).toBe('25.00');
    expect(formatTokenUnits(12_345_678n, 6)).toBe('12.345678');
    expect(formatTokenUnits(1n, 6)).toBe('0.000001');
    expect(formatTokenUnits(25_000_000_000_000_000_000n, 18)).toBe('25.00');
    expect(formatTokenUnits(999_999_990_000_000_000_000_000n, 18)).toBe('999999.99');
    expect(formatTokenUnits(1n, 18)).toBe('0.000000000000000001');
    expect(formatTokenUnits(150n, 2)).toBe('1.50');
  });

  it('asks a wallet app for an EIP-681 ERC-20 transfer, and draws exactly that in the QR code', () => {
    const uri = eip681Uri(USDT, ADDRESS, 25_000_000n);
    expect(uri).toBe(`ethereum:${USDT.token}@31337/transfer?address=${ADDRESS}&uint256=25000000`);
    const svg = qrSvg(uri, 'QR').value;
    expect(svg).toMatch(/^<svg class="qr" xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 (\d+) \1" role="img" aria-label="QR"/);
    const { modules } = createQr(uri, { errorCorrectionLevel: 'M' });
    const expected = new Set<string>();
    for (let y = 0; y < modules.size; y++) for (let x = 0; x < modules.size; x++) if (modules.get(y, x)) expected.add(`${x},${y}`);
    expect(drawnCells(svg)).toEqual(expected);
    // No style attribute (the policy allows none) and nothing fetched.
    expect(svg).not.toMatch(/style=|href=/);
  });

  it('the deposit page: address, exact amount, token, network, contract, QR, time left, a way to look again', () => {
    const page = renderCheckout({ page: 'crypto', summary, deposit: { address: ADDRESS, option: USDT, units: 25_000_000n, href: href(USDT), seen: 'requires_payment_method:0.00' } }, ctx);
    expect(page).toContain('<h2>Send 25.00 USDT</h2>');
    expect(page).toContain(`<code dir="ltr" id="deposit-address" class="address">${ADDRESS}</code>`);
    expect(page).toContain('<span dir="ltr" id="crypto-amount">25.00 USDT</span>');
    expect(page).toContain('anvil (chain ID 31337)');
    expect(page).toContain(`<code dir="ltr" class="address">${USDT.token}</code>`);
    expect(page).toContain('role="img" aria-label="QR code for your wallet app: 25.00 USDT to the deposit address"');
    expect(page).toContain(qrSvg(eip681Uri(USDT, ADDRESS, 25_000_000n), 'QR code for your wallet app: 25.00 USDT to the deposit address').value);
    expect(page).toContain('<time id="time-left" datetime="2030-01-01T00:00:00.000Z" data-format="{m} min {s} s">10 min 00 s</time>');
    expect(page).toContain('<time datetime="2030-01-01T00:00:00.000Z" dir="ltr">2030-01-01 00:00 UTC</time>');
    expect(page).toContain('This page updates once your transfer is confirmed on the network (3 confirmations).');
    expect(page).toContain(`<a class="button" href="${href(USDT).replace(/&/g, '&amp;')}">Check again</a>`);
    expect(page).toContain('data-poll="/checkout/pi_live_1/crypto/status" data-seen="requires_payment_method:0.00"');
    // The copy button is for script users only (hidden until the script shows it).
    expect(page).toMatch(/<button type="button" class="secondary copy" id="copy-address" data-copied="Address copied" hidden>Copy the address<\/button>/);
    expect(page.match(/<script nonce="n0nce">/g)).toHaveLength(2);
    // The language switch keeps the choice of network and token.
    expect(page).toContain(`href="${href(USDT).replace(/&/g, '&amp;')}&amp;lang=ar"`);
  });

  it('18 decimals: the same amount in the token\'s own units', () => {
    const page = renderCheckout({ page: 'crypto', summary, deposit: { address: ADDRESS, option: DAI, units: 25n * 10n ** 18n, href: href(DAI), seen: 's' } }, ctx);
    expect(page).toContain('<span dir="ltr" id="crypto-amount">25.00 DAI</span>');
    expect(page).toContain('<h2>Send 25.00 DAI</h2>');
  });

  it('after part of it arrived: what was received and what is still due, the rest to send', () => {
    const partly = { ...summary, crypto: { received: '10.00', remaining: '15.00', overpayment: '0.00' } };
    const page = renderCheckout({ page: 'crypto', summary: partly, deposit: { address: ADDRESS, option: USDT, units: 15_000_000n, href: href(USDT), seen: 'processing:10.00' } }, ctx);
    expect(page).toContain('<p class="note" role="status">Received 10.00 USD; 15.00 USD still due.</p>');
    expect(page).toContain('<h2>Send 15.00 USDT</h2>');
  });

  it('in Arabic, right to left, the address and amounts kept left to right', () => {
    const page = renderCheckout({ page: 'crypto', summary, deposit: { address: ADDRESS, option: USDT, units: 25_000_000n, href: href(USDT), seen: 's' } }, { ...ctx, lang: 'ar' });
    expect(page).toContain('<html lang="ar" dir="rtl">');
    expect(page).toContain('<h2>أرسل 25.00 USDT</h2>');
    expect(page).toContain('تتحدّث هذه الصفحة عند تأكيد تحويلك على الشبكة (3 تأكيدات).');
    expect(page).toContain(`<code dir="ltr" id="deposit-address" class="address">${ADDRESS}</code>`);
    expect(page).toContain('href="/checkout/pi_live_1?lang=ar">اختر طريقة دفع أخرى</a>');
    expect(page).toContain('&amp;lang=en"');
  });

  it('the pay page lists each configured network + token as a form asking for the address; no crypto sandbox then', () => {
    const pay = { page: 'pay' as const, summary, methods: ['togo', 'crypto'], providerMethods: [], notice: null, cancellable: true, cryptoTransfers: true };
    for (const test of [true, false]) {
      const page = renderCheckout({ ...pay, test, cryptoOptions: [USDT, DAI] }, ctx);
      expect(page).toContain('<form method="post" action="/checkout/pi_live_1/crypto/address"><input type="hidden" name="network" value="31337">');
      expect(page).toContain(`<input type="hidden" name="token" value="${DAI.token}">`);
      expect(page).toContain('>Pay with USDT on anvil</button>');
      expect(page).toContain('>Pay with DAI on anvil</button>');
      expect(page).not.toContain('name="send"');
      expect(page).not.toContain('Digital currency: not available yet');
    }
    // Without a configured chain: test keeps its sandbox, live says not available.
    expect(renderCheckout({ ...pay, test: true, cryptoOptions: null }, ctx)).toContain('name="send" value="under"');
    expect(renderCheckout({ ...pay, test: false, cryptoOptions: null }, ctx)).toContain('Digital currency: not available yet');
  });

  it('the receipt notes an overpayment', () => {
    const over = { ...summary, crypto: { received: '26.00', remaining: '0.00', overpayment: '1.00' } };
    expect(renderCheckout({ page: 'paid', summary: over }, ctx)).toContain('1.00 USD more than due was received; Corner Shop will settle it.');
  });

  it('expired with a deposit address: a late transfer is still recorded; what came is said', () => {
    expect(renderCheckout({ page: 'expired', summary }, ctx)).not.toContain('Check again');
    const page = renderCheckout({ page: 'expired', summary: { ...summary, depositAddress: true, crypto: { received: '4.00', remaining: '21.00', overpayment: '0.00' } } }, ctx);
    expect(page).toContain('4.00 USD was received for this payment. It has been recorded and Corner Shop has been told.');
    expect(page).toContain('It is still recorded once confirmed, and this page then shows the receipt.');
    expect(page).toContain('<a class="button" href="/checkout/pi_live_1">Check again</a>');
    expect(renderCheckout({ page: 'expired', summary: { ...summary, depositAddress: true } }, { ...ctx, lang: 'ar' })).toContain('href="/checkout/pi_live_1?lang=ar">تحقّق مرة أخرى</a>');
  });
});
