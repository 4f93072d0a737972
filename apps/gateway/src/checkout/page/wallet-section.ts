// The customer wallet's forms (e-mail → code → signed in), drawn on the checkout (in place of the `togo` method)
// and on the wallet page. Each form carries its token (`_csrf`); the pay form is the only one that moves money.
import { escapeHtml, html, SafeHtml } from './html';
import type { Language, Messages } from './messages';

/** Why a wallet sign-in step was refused (`too_many_requests`: the client's address is past its limit, AddressLimits). */
export type WalletCodeError = 'invalid_email' | 'invalid_code' | 'expired' | 'too_many_attempts' | 'too_many_requests';

/** Where a sign-in form sends the customer back: a checkout session (its id), else the wallet page. */
export interface WalletFormContext {
  environment: 'live' | 'test';
  csrf: string;
  lang: Language;
  returnTo: string | null;
  /** The page the form is on: a sign-in goes back there. */
  from: 'checkout' | 'wallet';
}

export type WalletSection =
  | { state: 'signed_out'; error: WalletCodeError | null }
  | { state: 'code_sent'; email: string; error: WalletCodeError | null }
  | {
      state: 'signed_in';
      email: string;
      /** MoneyString, null when the ledger did not answer. */
      balance: string | null;
      notice: 'insufficient' | 'pending' | 'unavailable' | null;
    };

/** `fill` for markup: the template's text escaped, each value as given (an isolated e-mail, a left-to-right amount). */
export function fillHtml(template: string, values: Record<string, SafeHtml>): SafeHtml {
  return new SafeHtml(template.split(/(\{\w+\})/).map((part) => {
    const key = /^\{(\w+)\}$/.exec(part)?.[1];
    return key !== undefined && values[key] ? values[key].value : escapeHtml(part);
  }).join(''));
}

/** Text that keeps its own direction inside a sentence of the other (an address, an amount in Arabic). */
export const ltr = (text: string): SafeHtml => html`<bdi dir="ltr">${text}</bdi>`;

const ERROR_TEXT: Record<WalletCodeError, keyof Messages['wallet']> = {
  invalid_email: 'invalidEmail',
  invalid_code: 'invalidCode',
  expired: 'expiredCode',
  too_many_attempts: 'tooManyAttempts',
  too_many_requests: 'tooManyRequests',
};

/** A sign-in refusal named in a page's query (`wallet_error=`), or null for anything else. */
export function walletCodeErrorOf(value: unknown): WalletCodeError | null {
  return typeof value === 'string' && Object.hasOwn(ERROR_TEXT, value) ? (value as WalletCodeError) : null;
}

function hidden(f: WalletFormContext): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${f.csrf}"><input type="hidden" name="lang" value="${f.lang}"><input type="hidden" name="from" value="${f.from}">${f.returnTo ? html`<input type="hidden" name="return_to" value="${f.returnTo}">` : null}`;
}

/** The e-mail form, or the code form once a code was sent: the signed-out part of the wallet. */
export function walletSignInForms(m: Messages, section: Extract<WalletSection, { state: 'signed_out' | 'code_sent' }>, f: WalletFormContext, idPrefix: string): SafeHtml {
  const w = m.wallet;
  const action = `/wallet/${f.environment}`;
  const error = section.error ? html`<p class="alert" role="alert" id="${idPrefix}-error">${w[ERROR_TEXT[section.error]] as string}</p>` : null;
  const described = section.error ? `${idPrefix}-error` : null;
  if (section.state === 'signed_out') {
    return html`<p>${w.intro}</p>${error}
<form method="post" action="${action}/code">${hidden(f)}<label for="${idPrefix}-email">${w.emailLabel}</label><input id="${idPrefix}-email" name="email" type="email" autocomplete="email" required maxlength="254" dir="ltr"${described ? html` aria-describedby="${described}"` : null}><button type="submit">${w.sendCode}</button></form>`;
  }
  return html`<p role="status">${fillHtml(w.codeSent, { email: ltr(section.email) })}</p>${error}
<form method="post" action="${action}/sign-in">${hidden(f)}<label for="${idPrefix}-code">${w.codeLabel}</label><input id="${idPrefix}-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxlength="7" required dir="ltr"${described ? html` aria-describedby="${described}"` : null}><button type="submit">${w.signIn}</button></form>
<form method="post" action="${action}/code">${hidden(f)}<input type="hidden" name="email" value="${section.email}"><button type="submit" class="secondary">${w.resend}</button></form>
<form method="post" action="${action}/forget">${hidden(f)}<button type="submit" class="quiet">${w.otherEmail}</button></form>`;
}

/** The signed-in wallet's address and sign-out form. */
export function walletSignedInLine(m: Messages, email: string): SafeHtml {
  return html`<p class="muted">${fillHtml(m.wallet.signedInAs, { email: ltr(email) })}</p>`;
}

export function walletSignOutForm(m: Messages, f: WalletFormContext): SafeHtml {
  return html`<form method="post" action="/wallet/${f.environment}/sign-out">${hidden(f)}<button type="submit" class="quiet">${m.wallet.signOut}</button></form>`;
}

/** The wallet on the checkout: sign in, or the balance and the one button that pays. */
export function checkoutWallet(m: Messages, section: WalletSection, f: WalletFormContext & { sessionId: string; amount: string; attempt: string }): SafeHtml {
  const w = m.wallet;
  if (section.state !== 'signed_in') {
    return html`<section class="method wallet" aria-labelledby="wallet-heading"><h3 id="wallet-heading">${w.heading}</h3>${walletSignInForms(m, section, f, 'wallet')}</section>`;
  }
  const balance = section.balance === null ? w.balanceUnavailable : `${section.balance} USD`;
  const topUp = `/wallet/${f.environment}?return_to=${encodeURIComponent(f.sessionId)}${f.lang === 'ar' ? '&lang=ar' : ''}`;
  const notice =
    section.notice === 'insufficient'
      ? html`<div class="alert" role="alert"><p>${fillHtml(w.insufficient, { balance: ltr(balance), amount: ltr(f.amount) })}</p><p><a href="${topUp}#top-up">${w.topUpLink}</a></p></div>`
      : section.notice === 'pending'
        ? html`<p class="note" role="status">${w.pending}</p>`
        : section.notice === 'unavailable'
          ? html`<p class="alert" role="alert">${w.unavailable}</p>`
          : null;
  return html`<section class="method wallet" aria-labelledby="wallet-heading"><h3 id="wallet-heading">${w.heading}</h3>
${walletSignedInLine(m, section.email)}
<dl><dt>${w.balance}</dt><dd><span dir="ltr">${balance}</span></dd></dl>
${notice}
<form method="post" action="/checkout/${f.sessionId}/wallet/pay"><input type="hidden" name="_csrf" value="${f.csrf}"><input type="hidden" name="attempt" value="${f.attempt}-wallet"><input type="hidden" name="lang" value="${f.lang}"><button type="submit">${fillHtml(w.pay, { amount: ltr(f.amount) })}</button></form>
<p><a href="${topUp}">${w.openWallet}</a></p>
${walletSignOutForm(m, f)}
</section>`;
}
