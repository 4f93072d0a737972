import { html, type SafeHtml } from '../../checkout/page/html';
import type { PageRequest } from '../session/dashboard-auth';
import { csrfField } from '../web/respond';
import { secretOnce } from '../web/components';
import type { DashboardLanguage } from '../web/i18n';
import { signInText } from './sign-in-messages';

type Key = Parameters<typeof signInText>[1];
const tr = (lang: DashboardLanguage) => (key: Key, vars?: Record<string, string>) => signInText(lang, key, vars);

export type Notice = { tone: 'error' | 'ok' | 'info'; text: string | SafeHtml } | null;

function notice(n: Notice): SafeHtml | null {
  return n ? html`<div class="banner ${n.tone}" role="${n.tone === 'error' ? 'alert' : 'status'}">${n.text}</div>` : null;
}

export function signInForm(page: PageRequest, values: { email?: string; next?: string }, n: Notice = null): SafeHtml {
  const t = tr(page.lang);
  return html`<div class="card"><h1>${t('signInTitle')}</h1>${notice(n)}
<form method="post" action="/dashboard/login">${csrfField(page)}<input type="hidden" name="next" value="${values.next ?? ''}">
<label for="email">${t('email')}</label><input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${values.email ?? ''}">
<label for="password">${t('password')}</label><input id="password" name="password" type="password" autocomplete="current-password" required maxlength="128">
<div class="actions"><button type="submit">${t('signIn')}</button></div></form>
<p><a href="/dashboard/signup">${t('noAccount')}</a> · <a href="/dashboard/forgot-password">${t('forgot')}</a></p></div>`;
}

export function secondFactorForm(page: PageRequest, n: Notice = null): SafeHtml {
  const t = tr(page.lang);
  return html`<div class="card"><h1>${t('secondFactorTitle')}</h1>${notice(n)}
<form method="post" action="/dashboard/login/second-factor">${csrfField(page)}
<label for="code">${t('code')}</label><input id="code" name="code" inputmode="text" autocomplete="one-time-code" required maxlength="32" aria-describedby="code-hint"><p class="hint" id="code-hint">${t('codeHint')}</p>
<div class="actions"><button type="submit">${t('continue')}</button></div></form></div>`;
}

export function signUpForm(page: PageRequest, values: { email?: string; businessName?: string }, n: Notice = null): SafeHtml {
  const t = tr(page.lang);
  return html`<div class="card"><h1>${t('signUpTitle')}</h1>${notice(n)}
<form method="post" action="/dashboard/signup">${csrfField(page)}
<label for="business">${t('businessName')}</label><input id="business" name="business_name" required maxlength="200" autocomplete="organization" value="${values.businessName ?? ''}">
<label for="email">${t('email')}</label><input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${values.email ?? ''}">
<label for="password">${t('password')}</label><input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" maxlength="128" aria-describedby="pw-hint"><p class="hint" id="pw-hint">${t('passwordHint')}</p>
<div class="actions"><button type="submit">${t('createAccount')}</button></div></form>
<p><a href="/dashboard/login">${t('haveAccount')}</a></p></div>`;
}

export function messageCard(page: PageRequest, title: Key, body: Key, vars: Record<string, string> = {}, link?: { href: string; label: Key }): SafeHtml {
  const t = tr(page.lang);
  return html`<div class="card"><h1>${t(title, vars)}</h1><p>${t(body, vars)}</p>${link ? html`<p><a class="button" href="${link.href}">${t(link.label)}</a></p>` : null}</div>`;
}

export function forgotForm(page: PageRequest, n: Notice = null): SafeHtml {
  const t = tr(page.lang);
  return html`<div class="card"><h1>${t('forgotTitle')}</h1>${notice(n)}<p>${t('forgotBody')}</p>
<form method="post" action="/dashboard/forgot-password">${csrfField(page)}
<label for="email">${t('email')}</label><input id="email" name="email" type="email" autocomplete="username" required maxlength="254">
<div class="actions"><button type="submit">${t('sendLink')}</button></div></form></div>`;
}

export function resetForm(page: PageRequest, token: string, n: Notice = null): SafeHtml {
  const t = tr(page.lang);
  return html`<div class="card"><h1>${t('resetTitle')}</h1>${notice(n)}
<form method="post" action="/dashboard/reset-password">${csrfField(page)}<input type="hidden" name="token" value="${token}">
<label for="password">${t('newPassword')}</label><input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" maxlength="128" aria-describedby="pw-hint"><p class="hint" id="pw-hint">${t('passwordHint')}</p>
<div class="actions"><button type="submit">${t('savePassword')}</button></div></form></div>`;
}

export function invitationForm(page: PageRequest, token: string, invitation: { merchantName: string; role: string; email: string }, n: Notice = null): SafeHtml {
  const t = tr(page.lang);
  return html`<div class="card"><h1>${t('invitationTitle', { merchant: invitation.merchantName })}</h1>${notice(n)}<p>${t('invitationBody', { role: invitation.role })}</p>
<form method="post" action="/dashboard/invitations/accept">${csrfField(page)}<input type="hidden" name="token" value="${token}">
<label for="email">${t('email')}</label><input id="email" name="email" type="email" value="${invitation.email}" readonly>
<label for="password">${t('password')}</label><input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" maxlength="128" aria-describedby="pw-hint"><p class="hint" id="pw-hint">${t('passwordHint')}</p>
<div class="actions"><button type="submit">${t('join')}</button></div></form></div>`;
}


/** After sign-up: the confirmation mail is on its way, and the first test key, shown this once. */
export function signedUpCard(page: PageRequest, email: string, testKey: string): SafeHtml {
  const t = tr(page.lang);
  return html`<div class="card"><h1>${t('checkMailTitle')}</h1><p>${t('checkMailBody', { email })}</p></div>
<div class="card"><h2>${t('testKeyTitle')}</h2><p>${t('testKeyBody')}</p>${secretOnce(page, 'test-key', testKey, t('copy'), t('copied'))}</div>`;
}
