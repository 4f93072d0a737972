// The live crypto part of the checkout: the token choices, and the deposit page (address, exact amount in the
// token, network, contract, a QR code drawn here as inline SVG, time left). Pure: the controller brings the
// configured chains and the session's address.
import { create as createQr } from 'qrcode';
import { html, SafeHtml } from './html';
import { fill, type Messages } from './messages';

/** One network + token the customer may pay with (from the crypto settings of the session's environment). */
export interface CryptoOption {
  chainId: number;
  network: string;
  symbol: string;
  token: `0x${string}`;
  decimals: number;
  confirmations: number;
}

/** What the deposit page shows: where to send what. `units` is the token's integer amount (never a float). */
export interface CryptoDeposit {
  address: string;
  option: CryptoOption;
  units: bigint;
  /** This page's own address (network and token in its query): "Check again" and the language switch. */
  href: string;
  /** The session state the page was drawn for: the script reloads once the status answers something else. */
  seen: string;
}

/** Token units as a decimal string of the token: 25000000 at 6 decimals is "25.00" (at least two decimals, no float). */
export function formatTokenUnits(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  let fraction = decimals > 0 ? digits.slice(digits.length - decimals).replace(/0+$/, '') : '';
  if (fraction.length < 2) fraction = fraction.padEnd(Math.min(2, decimals), '0');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/**
 * An EIP-681 payment request for an ERC-20 transfer (`ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<units>`):
 * a wallet app that reads the QR code fills in the token, the network, the recipient and the exact amount.
 */
export function eip681Uri(option: Pick<CryptoOption, 'token' | 'chainId'>, address: string, units: bigint): string {
  return `ethereum:${option.token}@${option.chainId}/transfer?address=${address}&uint256=${units.toString()}`;
}

/**
 * A QR code as inline SVG, drawn from the qrcode package's module matrix: one filled path, no style attribute
 * (the page's content security policy allows no inline style outside the nonce'd sheet) and no image request.
 */
export function qrSvg(text: string, label: string): SafeHtml {
  const { modules } = createQr(text, { errorCorrectionLevel: 'M' });
  const size = modules.size;
  const quiet = 4;
  const runs: string[] = [];
  for (let y = 0; y < size; y++) {
    let x = 0;
    while (x < size) {
      if (!modules.get(y, x)) {
        x++;
        continue;
      }
      const start = x;
      while (x < size && modules.get(y, x)) x++;
      runs.push(`M${start + quiet} ${y + quiet}h${x - start}v1h-${x - start}z`);
    }
  }
  const full = size + 2 * quiet;
  // Only our own digits and hex go into the path; the label is escaped by `html`.
  return html`<svg class="qr" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${full} ${full}" role="img" aria-label="${label}" shape-rendering="crispEdges"><title>${label}</title><rect width="${full}" height="${full}" fill="#fff"/><path fill="#000" d="${new SafeHtml(runs.join(''))}"/></svg>`;
}

/** The choices in place of crypto's sandbox: one form per network + token, each asking for the deposit address. */
export function cryptoChoices(m: Messages, options: readonly CryptoOption[], ctx: { path: string; attempt: string; lang: string }): SafeHtml {
  return html`<div class="method"><p class="muted">${m.methods['crypto']}</p>${options.map(
    (o, i) =>
      html`<form method="post" action="${ctx.path}/crypto/address"><input type="hidden" name="network" value="${o.chainId}"><input type="hidden" name="token" value="${o.token}"><input type="hidden" name="lang" value="${ctx.lang}"><input type="hidden" name="attempt" value="${ctx.attempt}-crypto${i}"><button type="submit"${i > 0 ? html` class="secondary"` : ''}>${fill(m.crypto.payWith, { token: o.symbol, network: o.network })}</button></form>`,
  )}</div>`;
}

/** The expiry as the customer's clock may not be set right: a fixed UTC time beside the countdown. */
function utcTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

export interface DepositSummary {
  merchantName: string;
  amount: string;
  currency: string;
  description: string | null;
  expiresAt: string;
  crypto: { received: string; remaining: string } | null;
}

/** The deposit page's body (the caller adds the countdown and status scripts). */
export function depositBody(m: Messages, s: DepositSummary, d: CryptoDeposit, timeLeft: SafeHtml, links: { back: string; status: string }): SafeHtml {
  const c = m.crypto;
  const amount = formatTokenUnits(d.units, d.option.decimals);
  const network = fill(c.networkName, { network: d.option.network, chainId: String(d.option.chainId) });
  const qrLabel = fill(c.qrLabel, { amount, token: d.option.symbol });
  return html`<h1>${fill(m.payTo, { merchant: s.merchantName })}</h1>
<dl>
<dt>${m.amount}</dt><dd class="amount"><span dir="ltr">${s.amount} ${s.currency}</span></dd>
${s.description ? html`<dt>${m.description}</dt><dd>${s.description}</dd>` : null}
</dl>
${s.crypto ? html`<p class="note" role="status">${fill(m.partial, { received: `${s.crypto.received} ${s.currency}`, remaining: `${s.crypto.remaining} ${s.currency}` })}</p>` : null}
<h2>${fill(c.heading, { amount, token: d.option.symbol })}</h2>
<div class="deposit">${qrSvg(eip681Uri(d.option, d.address, d.units), qrLabel)}
<dl class="stack">
<dt>${c.amountToSend}</dt><dd class="amount"><span dir="ltr" id="crypto-amount">${amount} ${d.option.symbol}</span></dd>
<dt>${c.network}</dt><dd>${network}</dd>
<dt id="deposit-address-label">${c.address}</dt><dd><code dir="ltr" id="deposit-address" class="address">${d.address}</code>
<button type="button" class="secondary copy" id="copy-address" data-copied="${c.copied}" hidden>${c.copy}</button></dd>
<dt>${c.contract}</dt><dd><code dir="ltr" class="address">${d.option.token}</code></dd>
</dl></div>
<p class="note">${fill(c.warning, { token: d.option.symbol, network: d.option.network })}</p>
${timeLeft}
<p>${c.sendBy} <time datetime="${s.expiresAt}" dir="ltr">${utcTime(s.expiresAt)}</time></p>
<p role="status" id="crypto-status" data-poll="${links.status}" data-seen="${d.seen}">${fill(c.waiting, { confirmations: String(d.option.confirmations) })}</p>
<p><a class="button" href="${d.href}">${c.checkAgain}</a></p>
<p><a href="${links.back}">${c.otherWay}</a></p>`;
}
