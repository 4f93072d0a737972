// The customer's wallet page (/wallet/live, /wallet/test): sign in with an e-mailed code, then the balance, a card
// top-up, the payer details shops see, and the statement. Same look, headers and rules as the checkout.
import { html, type SafeHtml } from './html';
import { CUSTOMER_PAGE_STYLE } from './checkout-page';
import { fill, MESSAGES, type Language, type Messages } from './messages';
import { fillHtml, ltr, walletSignedInLine, walletSignInForms, walletSignOutForm, type WalletFormContext, type WalletSection } from './wallet-section';

export interface StatementEntry {
  type: string;
  /** Signed MoneyString as the customer sees it (money in positive). */
  amount: string;
  merchantName: string | null;
  createdAt: string;
  description: string | null;
}

export type WalletPageNotice =
  | 'topUpSucceeded'
  | 'topUpFailed'
  | 'topUpPending'
  | 'topUpInvalid'
  | 'topUpUnavailable'
  | 'profileSaved'
  | 'profileInvalid';

export interface WalletPageView {
  environment: 'live' | 'test';
  notice: WalletPageNotice | null;
  /** The top-up's amount, for topUpSucceeded. */
  noticeAmount: string | null;
  /** Signed out: the e-mail or code form. */
  signIn: Extract<WalletSection, { state: 'signed_out' | 'code_sent' }> | null;
  wallet: null | {
    email: string;
    balance: string | null;
    profile: { name: string | null; phone: string | null; country: string | null };
    /** null: the ledger did not answer. */
    statement: { entries: StatementEntry[]; olderCursor: string | null; paged: boolean } | null;
  };
}

const GOOD: ReadonlySet<WalletPageNotice> = new Set(['topUpSucceeded', 'profileSaved']);
const BAD: ReadonlySet<WalletPageNotice> = new Set(['topUpFailed', 'topUpInvalid', 'topUpUnavailable', 'profileInvalid']);

function notice(m: Messages, view: WalletPageView): SafeHtml | null {
  if (!view.notice) return null;
  const text = view.notice === 'topUpSucceeded' ? fillHtml(m.wallet.topUpSucceeded, { amount: ltr(`${view.noticeAmount ?? ''} USD`) }) : m.wallet[view.notice];
  if (GOOD.has(view.notice)) return html`<p class="ok" role="status">${text}</p>`;
  if (BAD.has(view.notice)) return html`<p class="alert" role="alert">${text}</p>`;
  return html`<p class="note" role="status">${text}</p>`;
}

function entryText(m: Messages, entry: StatementEntry): string {
  const template = m.wallet.types[entry.type] ?? entry.type;
  return fill(template, { merchant: entry.merchantName || m.wallet.unknownMerchant });
}

function statement(m: Messages, view: NonNullable<WalletPageView['wallet']>, ctx: WalletPageContext): SafeHtml {
  const w = m.wallet;
  if (!view.statement) return html`<p class="muted">${w.balanceUnavailable}</p>`;
  const { entries, olderCursor, paged } = view.statement;
  const base = `/wallet/${ctx.form.environment}?lang=${ctx.lang}${ctx.form.returnTo ? `&return_to=${encodeURIComponent(ctx.form.returnTo)}` : ''}`;
  const items = entries.map(
    (entry) => html`<li><span class="what">${entryText(m, entry)}${entry.description ? html` <span class="muted">(${entry.description})</span>` : null}<time class="when" datetime="${entry.createdAt}">${when(entry.createdAt, ctx.lang)}</time></span><span class="sum" dir="ltr">${entry.amount.startsWith('-') ? entry.amount.replace('-', '\u2212') : `+${entry.amount}`} USD</span></li>`,
  );
  return html`${entries.length === 0 ? html`<p class="muted">${w.statementEmpty}</p>` : html`<ol class="statement">${items}</ol>`}
${paged || olderCursor ? html`<nav class="pages" aria-label="${w.statementHeading}">${paged ? html`<a href="${base}">${w.newest}</a>` : html`<span></span>`}${olderCursor ? html`<a href="${base}&after=${encodeURIComponent(olderCursor)}">${w.older}</a>` : null}</nav>` : null}`;
}

function when(iso: string, lang: Language): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(lang === 'ar' ? 'ar-u-nu-latn' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(date) + ' UTC';
}

export interface WalletPageContext {
  lang: Language;
  nonce: string;
  /** The page's own path and query (the language switch). */
  path: string;
  form: WalletFormContext;
}

function signedInBody(m: Messages, wallet: NonNullable<WalletPageView['wallet']>, ctx: WalletPageContext): SafeHtml {
  const w = m.wallet;
  const f = ctx.form;
  const hidden = html`<input type="hidden" name="_csrf" value="${f.csrf}"><input type="hidden" name="lang" value="${f.lang}"><input type="hidden" name="from" value="wallet">${f.returnTo ? html`<input type="hidden" name="return_to" value="${f.returnTo}">` : null}`;
  const p = wallet.profile;
  return html`${walletSignedInLine(m, wallet.email)}
<dl><dt>${w.balance}</dt><dd class="amount"><span dir="ltr">${wallet.balance === null ? w.balanceUnavailable : `${wallet.balance} USD`}</span></dd></dl>
${f.returnTo ? html`<p><a href="/checkout/${f.returnTo}${ctx.lang === 'ar' ? '?lang=ar' : ''}">${w.backToPayment}</a></p>` : null}
<h2 id="top-up">${w.topUpHeading}</h2>
<form method="post" action="/wallet/${f.environment}/top-up">${hidden}<label for="amount">${w.amountLabel}</label><input id="amount" name="amount" inputmode="decimal" autocomplete="off" required maxlength="10" pattern="[0-9]+([.][0-9]{1,2})?" dir="ltr" placeholder="25.00"><button type="submit">${w.topUp}</button></form>
<h2>${w.statementHeading}</h2>
${statement(m, wallet, ctx)}
<h2>${w.profileHeading}</h2>
<p class="muted">${w.profileHelp}</p>
<form method="post" action="/wallet/${f.environment}/profile">${hidden}
<label for="name">${w.nameLabel}</label><input id="name" name="name" autocomplete="name" maxlength="160" value="${p.name ?? ''}">
<label for="phone">${w.phoneLabel}</label><input id="phone" name="phone" type="tel" autocomplete="tel" maxlength="40" dir="ltr" value="${p.phone ?? ''}">
<label for="country">${w.countryLabel}</label><input id="country" name="country" autocomplete="country" maxlength="2" dir="ltr" value="${p.country ?? ''}">
<button type="submit" class="secondary">${w.saveProfile}</button></form>
${walletSignOutForm(m, f)}`;
}

export function renderWalletPage(view: WalletPageView, ctx: WalletPageContext): string {
  const m = MESSAGES[ctx.lang];
  const w = m.wallet;
  const body = view.wallet
    ? signedInBody(m, view.wallet, ctx)
    : html`${view.signIn ? walletSignInForms(m, view.signIn, ctx.form, 'wallet') : null}${ctx.form.returnTo ? html`<p><a href="/checkout/${ctx.form.returnTo}">${w.backToPayment}</a></p>` : null}`;
  const other = m.languageCode;
  const switchTo = new URL(ctx.path, 'http://page');
  switchTo.searchParams.set('lang', other);
  return `<!doctype html>${html`<html lang="${ctx.lang}" dir="${m.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${w.title}</title>
<style nonce="${ctx.nonce}">${CUSTOMER_PAGE_STYLE}</style>
</head>
<body>
<main>
<div class="card">
<h1>${w.title}</h1>
${view.environment === 'test' ? html`<p class="note">${w.testWallet}</p>` : null}
${notice(m, view)}
${body}
</div>
<footer><a href="${switchTo.pathname}${switchTo.search}" lang="${other}" hreflang="${other}">${m.language}</a></footer>
</main>
</body>
</html>`.value}`;
}
