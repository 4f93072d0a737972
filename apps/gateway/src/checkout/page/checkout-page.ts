// The checkout's HTML: one small page per state, no framework, no third-party request. Works without JavaScript;
// one nonce'd script adds the countdown (and, while a payment is confirmed, the live status). Styles are inline under the same nonce (one request in all).
import { html, SafeHtml } from './html';
import type { CheckoutView, SessionSummary } from './checkout-view';
import { fill, MESSAGES, type Language, type Messages } from './messages';
import { checkoutWallet, type WalletFormContext, type WalletSection } from './wallet-section';
import { cryptoChoices, depositBody } from './crypto-deposit';

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans Arabic",sans-serif;color:#1a1a1a;background:#f4f5f7}
main{max-width:28rem;margin:0 auto;padding:1.25rem;overflow-wrap:anywhere}
.card{background:#fff;border:1px solid #d9dce1;border-radius:.75rem;padding:1.25rem}
h1{font-size:1.35rem;margin:0 0 1rem}
h2{font-size:1.05rem;margin:1.25rem 0 .5rem}
dl{display:grid;grid-template-columns:auto minmax(0,1fr);gap:.25rem 1rem;margin:0}
dt{color:#4a4f57}
dd{margin:0;font-weight:600;overflow-wrap:anywhere}
.amount{font-size:1.5rem}
.note{background:#fff8e1;border:1px solid #e0c46c;border-radius:.5rem;padding:.5rem .75rem;margin:1rem 0}
.alert{background:#fdecea;border:1px solid #d9534f;border-radius:.5rem;padding:.5rem .75rem;margin:1rem 0}
form{margin:.5rem 0}
button{width:100%;min-height:2.75rem;font:inherit;font-weight:600;border-radius:.5rem;border:1px solid #1f4fd1;background:#1f4fd1;color:#fff;cursor:pointer;padding:.5rem}
button.secondary{background:#fff;color:#1f4fd1}
button.quiet{background:#fff;color:#3d4249;border-color:#8a9099}
button:focus-visible,a:focus-visible{outline:3px solid #f0a500;outline-offset:2px}
.method{border-top:1px solid #e6e8eb;padding-top:.5rem;margin-top:.5rem}
.unavailable{color:#4a4f57}
a{color:#1f4fd1}
footer{margin-top:1rem;text-align:center}
h3{font-size:1rem;margin:.25rem 0 .5rem}
label{display:block;font-weight:600;margin:.5rem 0 .25rem}
input,select{width:100%;min-height:2.75rem;font:inherit;padding:.4rem .6rem;border:1px solid #6b7079;border-radius:.5rem;background:#fff;color:#1a1a1a}
input:focus-visible,select:focus-visible{outline:3px solid #f0a500;outline-offset:2px}
input+button,select+button{margin-top:.5rem}
.alert p,.note p{margin:.25rem 0}
.ok{background:#e8f5e9;border:1px solid #3c8d40;border-radius:.5rem;padding:.5rem .75rem;margin:1rem 0}
.muted{color:#4a4f57}
.statement{list-style:none;padding:0;margin:0}
.statement li{display:flex;justify-content:space-between;gap:.75rem;border-top:1px solid #e6e8eb;padding:.5rem 0}
.statement .what{min-width:0}
.statement .when{display:block;color:#4a4f57;font-size:.875rem}
.statement .sum{font-weight:600;white-space:nowrap}
nav.pages{display:flex;justify-content:space-between;gap:1rem;margin-top:.75rem}
a.button{display:block;text-align:center;min-height:2.75rem;line-height:1.5;font-weight:600;border-radius:.5rem;border:1px solid #1f4fd1;color:#1f4fd1;background:#fff;padding:.5rem;text-decoration:none}
.qr{display:block;width:100%;max-width:14rem;height:auto;margin:0 auto 1rem}
dl.stack{display:block}
dl.stack dd{margin:0 0 .75rem}
code.address{font:600 .95rem/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;word-break:break-all;user-select:all}
button.copy{margin-top:.5rem}
`;

const COUNTDOWN = `
const el=document.getElementById('time-left');
if(el){const end=Date.parse(el.getAttribute('datetime'));const fmt=el.dataset.format;
const tick=()=>{const left=Math.max(0,Math.round((end-Date.now())/1000));
el.textContent=fmt.replace('{m}',String(Math.floor(left/60))).replace('{s}',String(left%60).padStart(2,'0'));
if(left===0){location.reload();}else{setTimeout(tick,1000);}};tick();}
`;

// The deposit page: a copy button for the address, and a light look at the session every 5 s; any news (a
// transfer counted, paid, expired) reloads the page, which then shows it (the receipt once paid). Without script
// the customer's "Check again" does the same.
const CRYPTO = `
const copy=document.getElementById('copy-address');const addr=document.getElementById('deposit-address');
if(copy&&addr&&navigator.clipboard){copy.hidden=false;copy.addEventListener('click',()=>navigator.clipboard.writeText(addr.textContent.trim()).then(()=>{copy.textContent=copy.dataset.copied;},()=>{}));}
const st=document.getElementById('crypto-status');
if(st){const look=()=>fetch(st.dataset.poll,{cache:'no-store'}).then((r)=>r.ok?r.json():null).then((j)=>{if(j&&j.state!==st.dataset.seen){location.reload();}else{setTimeout(look,5000);}},()=>setTimeout(look,5000));setTimeout(look,5000);}
`;

// Live status while a payment is being confirmed: the page looks again every 5 s (without script, the customer's
// reload or "Continue" does the same).
const LIVE_STATUS = `setTimeout(()=>location.reload(),5000);`;

// Constants of this file, not data: raw text inside <style> and <script> must not be entity-escaped.
const TRUSTED_STYLE = new SafeHtml(STYLE);
/** The same styles for the wallet page (one look for the customer's pages). */
export const CUSTOMER_PAGE_STYLE = TRUSTED_STYLE;
const TRUSTED_COUNTDOWN = new SafeHtml(COUNTDOWN);
const TRUSTED_LIVE_STATUS = new SafeHtml(LIVE_STATUS);
const TRUSTED_CRYPTO = new SafeHtml(CRYPTO);

export interface PageContext {
  lang: Language;
  nonce: string;
  /** The page's own path (language switch and form targets). */
  path: string;
  now: Date;
  /** A fresh token per rendered page: the same submit twice is one attempt. */
  attempt: string;
  /** The customer's wallet in place of the `togo` method (a session that offers it). */
  wallet?: { section: WalletSection; form: WalletFormContext } | null;
}

/** The service balance: `togo` on intents, `wallet` on invoices; the customer pays it from their wallet. */
export function isWalletMethod(method: string): boolean {
  return method === 'togo' || method === 'wallet';
}

function methodName(m: Messages, method: string): string {
  return m.methods[method] ?? method;
}

function summaryList(m: Messages, s: SessionSummary): SafeHtml {
  return html`<dl>
<dt>${m.amount}</dt><dd class="amount"><span dir="ltr">${s.amount} ${s.currency}</span></dd>
${s.description ? html`<dt>${m.description}</dt><dd>${s.description}</dd>` : null}
</dl>`;
}

function timeLeft(m: Messages, s: SessionSummary, now: Date): SafeHtml {
  const left = Math.max(0, Math.round((Date.parse(s.expiresAt) - now.getTime()) / 1000));
  const text = fill(m.minutes, { m: String(Math.floor(left / 60)), s: String(left % 60).padStart(2, '0') });
  return html`<p>${m.timeLeft}: <time id="time-left" datetime="${s.expiresAt}" data-format="${m.minutes}">${text}</time></p>`;
}

function payPage(m: Messages, view: Extract<CheckoutView, { page: 'pay' }>, ctx: PageContext): SafeHtml {
  const s = view.summary;
  const providerForm = (method: string, label: string, style: string) =>
    html`<form method="post" action="${ctx.path}/pay"><input type="hidden" name="method" value="${method}"><input type="hidden" name="provider" value="1"><input type="hidden" name="attempt" value="${ctx.attempt}-provider"><button type="submit" class="${style}">${label}</button></form>`;
  const wallet = (method: string) =>
    isWalletMethod(method) && ctx.wallet
      ? checkoutWallet(m, ctx.wallet.section, { ...ctx.wallet.form, sessionId: s.id, amount: `${s.amount} ${s.currency}`, attempt: ctx.attempt })
      : null;
  const methodForms = view.methods.map((method) => {
    const name = methodName(m, method);
    const atProvider = view.providerMethods.includes(method);
    // The wallet is how togo is paid, live and test (test keeps its sandbox buttons beside it).
    if (!view.test && isWalletMethod(method) && ctx.wallet) return wallet(method);
    // A live chain serves the environment: the customer picks a network + token and gets the deposit address (no sandbox).
    if (method === 'crypto' && view.cryptoOptions && view.cryptoOptions.length > 0) return cryptoChoices(m, view.cryptoOptions, { path: ctx.path, attempt: ctx.attempt, lang: ctx.lang });
    if (!view.test) {
      return atProvider
        ? html`<div class="method">${providerForm(method, fill(m.payAtProvider, { method: name }), '')}</div>`
        : html`<p class="method unavailable">${fill(m.notAvailable, { method: name })}</p>`;
    }
    // Crypto's sandbox also sends less or more than due, as a real transfer can (to an intent: an invoice is paid whole).
    const transfers =
      method === 'crypto' && view.cryptoTransfers
        ? html`<form method="post" action="${ctx.path}/crypto"><input type="hidden" name="send" value="under"><input type="hidden" name="attempt" value="${ctx.attempt}-under"><button type="submit" class="secondary">${fill(m.cryptoUnder, { method: name })}</button></form>
<form method="post" action="${ctx.path}/crypto"><input type="hidden" name="send" value="over"><input type="hidden" name="attempt" value="${ctx.attempt}-over"><button type="submit" class="secondary">${fill(m.cryptoOver, { method: name })}</button></form>`
        : null;
    return html`<div class="method">
<form method="post" action="${ctx.path}/pay"><input type="hidden" name="method" value="${method}"><input type="hidden" name="outcome" value="succeed"><input type="hidden" name="attempt" value="${ctx.attempt}"><button type="submit">${fill(m.pay, { method: name })}</button></form>
<form method="post" action="${ctx.path}/pay"><input type="hidden" name="method" value="${method}"><input type="hidden" name="outcome" value="decline"><input type="hidden" name="attempt" value="${ctx.attempt}-decline"><button type="submit" class="secondary">${fill(m.decline, { method: name })}</button></form>
${transfers}
${atProvider ? providerForm(method, fill(m.providerTestPage, { method: name }), 'secondary') : null}
</div>${wallet(method)}`;
  });
  return html`<h1>${fill(m.payTo, { merchant: s.merchantName })}</h1>
${summaryList(m, s)}
${timeLeft(m, s, ctx.now)}
${view.notice ? html`<p class="alert" role="alert">${view.notice === 'declined' ? m.declined : m.providerUnavailable}</p>` : null}
${s.crypto ? html`<p class="note" role="status">${fill(m.partial, { received: `${s.crypto.received} ${s.currency}`, remaining: `${s.crypto.remaining} ${s.currency}` })}</p>` : null}
${view.test ? html`<p class="note">${m.testMode}</p>` : null}
<h2>${m.chooseMethod}</h2>
${methodForms}
${view.cancellable ? html`<form method="post" action="${ctx.path}/cancel"><button type="submit" class="quiet">${m.cancel}</button></form>` : null}`;
}

function statePage(m: Messages, view: CheckoutView, ctx: PageContext): SafeHtml {
  const merchant = 'summary' in view ? view.summary.merchantName : '';
  switch (view.page) {
    case 'paid':
      return html`<h1>${m.paidTitle}</h1><p>${fill(m.paidBody, { merchant, amount: `${view.summary.amount} ${view.summary.currency}` })}</p>
${view.summary.late ? html`<p class="note" role="status">${fill(m.latePaid, { merchant })}</p>` : null}
${view.summary.reference ? html`<dl><dt>${m.reference}</dt><dd>${view.summary.reference}</dd></dl>` : null}
${view.summary.crypto && view.summary.crypto.overpayment !== '0.00' ? html`<p class="note">${fill(m.overpaid, { overpayment: `${view.summary.crypto.overpayment} ${view.summary.currency}`, merchant })}</p>` : null}`;
    case 'expired':
      // A crypto transfer can come after the link expired: what came is recorded (and the merchant told), one
      // that completes the payment turns this page into the receipt.
      return html`<h1>${m.expiredTitle}</h1><p>${fill(m.expiredBody, { merchant })}</p>
${view.summary.crypto ? html`<p class="note" role="status">${fill(m.crypto.receivedAfterExpiry, { received: `${view.summary.crypto.received} ${view.summary.currency}`, merchant })}</p>` : null}
${view.summary.depositAddress ? html`<p>${m.crypto.lateTransfer}</p><p><a class="button" href="${ctx.path}${ctx.lang === 'ar' ? '?lang=ar' : ''}">${m.crypto.checkAgain}</a></p>` : null}`;
    case 'cancelled':
      return html`<h1>${m.cancelledTitle}</h1><p>${m.cancelledBody}</p>`;
    case 'processing':
      if (view.continueWith) {
        const method = view.continueWith;
        return html`<h1>${m.processingTitle}</h1><p role="status">${m.providerProcessingBody}</p>
<form method="post" action="${ctx.path}/pay"><input type="hidden" name="method" value="${method}"><input type="hidden" name="provider" value="1"><input type="hidden" name="attempt" value="${ctx.attempt}-continue"><button type="submit" class="secondary">${m.continuePayment}</button></form>`;
      }
      return html`<h1>${m.processingTitle}</h1><p role="status">${m.processingBody}</p>`;
    case 'failed':
      return html`<h1>${m.failedTitle}</h1><p>${fill(m.failedBody, { merchant })}</p>`;
    case 'not_found':
      return html`<h1>${m.notFoundTitle}</h1><p>${m.notFoundBody}</p>`;
    case 'refused':
      return html`<h1>${m.wallet.refusedTitle}</h1><p>${m.wallet.refusedBody}</p><p><a href="${view.back}">${m.wallet.back}</a></p>`;
    default:
      return html`<h1>${m.unavailableTitle}</h1><p>${m.unavailableBody}</p>`;
  }
}

export function renderCheckout(view: CheckoutView, ctx: PageContext): string {
  const m = MESSAGES[ctx.lang];
  const body =
    view.page === 'pay'
      ? payPage(m, view, ctx)
      : view.page === 'crypto'
        ? depositBody(m, view.summary, view.deposit, timeLeft(m, view.summary, ctx.now), { back: ctx.lang === 'ar' ? `${ctx.path}?lang=ar` : ctx.path, status: `${ctx.path}/crypto/status` })
        : statePage(m, view, ctx);
  const other = m.languageCode;
  const languageLink = view.page === 'crypto' ? `${view.deposit.href}&lang=${other}` : `${ctx.path}?lang=${other}`;
  return `<!doctype html>${html`<html lang="${ctx.lang}" dir="${m.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${m.title}</title>
<style nonce="${ctx.nonce}">${TRUSTED_STYLE}</style>
</head>
<body>
<main>
<div class="card">
${body}
</div>
<footer><a href="${languageLink}" lang="${other}" hreflang="${other}">${m.language}</a></footer>
</main>
${view.page === 'pay' || view.page === 'crypto' ? html`<script nonce="${ctx.nonce}">${TRUSTED_COUNTDOWN}</script>` : null}
${view.page === 'crypto' ? html`<script nonce="${ctx.nonce}">${TRUSTED_CRYPTO}</script>` : null}
${view.page === 'processing' ? html`<script nonce="${ctx.nonce}">${TRUSTED_LIVE_STATUS}</script>` : null}
</body>
</html>`.value}`;
}
