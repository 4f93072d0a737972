import { html, type SafeHtml } from '../../checkout/page/html';
import type { SignedInRequest } from '../session/dashboard-auth';
import { secretOnce } from '../web/components';
import { sectionPath } from '../web/layout';
import { csrfField } from '../web/respond';
import { securityText, type SecurityKey } from './security-messages';

type Vars = Record<string, string | number>;
const text = (page: SignedInRequest) => (key: SecurityKey, vars?: Vars) => securityText(page.lang, key, vars);

export const securityPath = (page: Pick<SignedInRequest, 'environment'>): string => sectionPath(page.environment, 'security');

function banner(tone: 'ok' | 'error', message: string): SafeHtml {
  return html`<div class="banner ${tone}" role="${tone === 'error' ? 'alert' : 'status'}"${tone === 'error' ? html` data-error` : html` data-notice`}>${message}</div>`;
}

function startForm(page: SignedInRequest, label: SecurityKey, secondary = false): SafeHtml {
  return html`<form method="post" action="${securityPath(page)}/totp/start" data-form="totp-start">${csrfField(page)}<div class="actions"><button type="submit"${secondary ? html` class="secondary"` : null}>${text(page)(label)}</button></div></form>`;
}

export interface SecurityView {
  totpEnabled: boolean;
  recoveryCodesLeft: number;
  notice?: string | null;
  /** A refusal of the form to turn TOTP off, or (renewError) of the one to renew the recovery codes. */
  error?: string | null;
  renewError?: string | null;
}

/** Two-step sign-in (on: turn it off with the password; off: set it up) and "log out everywhere". */
export function securityPage(page: SignedInRequest, view: SecurityView): SafeHtml {
  const t = text(page);
  const totp = view.totpEnabled
    ? html`<dl class="fields"><dt>${t('statusLabel')}</dt><dd><span class="status good" data-totp="on">${t('totpOn')}</span></dd><dt>${t('recoveryLeft')}</dt><dd data-recovery-left>${view.recoveryCodesLeft}</dd></dl>
<form method="post" action="${securityPath(page)}/recovery-codes" data-form="recovery-renew"><h3>${t('renewHeading')}</h3>${csrfField(page)}${view.renewError ? banner('error', view.renewError) : null}
<p class="hint" id="renew-hint">${t('renewIntro')}</p>
<label for="renew-password">${t('password')}</label><input id="renew-password" name="password" type="password" autocomplete="current-password" required maxlength="128" aria-describedby="renew-hint">
<div class="actions"><button type="submit" class="secondary">${t('renew')}</button></div></form>
<form method="post" action="${securityPath(page)}/totp/disable" data-form="totp-disable"><h3>${t('disableHeading')}</h3>${csrfField(page)}${view.error ? banner('error', view.error) : null}
<p class="hint" id="disable-hint">${t('disableIntro')}</p>
<label for="disable-password">${t('password')}</label><input id="disable-password" name="password" type="password" autocomplete="current-password" required maxlength="128" aria-describedby="disable-hint">
<div class="actions"><button type="submit" class="danger">${t('disable')}</button></div></form>`
    : html`<dl class="fields"><dt>${t('statusLabel')}</dt><dd><span class="status" data-totp="off">${t('totpOff')}</span></dd></dl>${view.error ? banner('error', view.error) : null}${startForm(page, 'start')}`;
  return html`<h1>${t('title')}</h1>${view.notice ? banner('ok', view.notice) : null}
<h2 id="totp-heading">${t('totpHeading')}</h2><section class="card" aria-labelledby="totp-heading"><p>${t('totpIntro')}</p>${totp}</section>
<h2 id="sessions-heading">${t('sessionsHeading')}</h2><section class="card" aria-labelledby="sessions-heading"><p>${t('sessionsIntro')}</p>
<form method="post" action="/dashboard/logout-everywhere" data-form="logout-everywhere">${csrfField(page)}<div class="actions"><button type="submit" class="secondary">${t('logoutEverywhere')}</button></div></form></section>`;
}

/**
 * The set-up: the new key (shown now only; no QR code library here, so the key and the otpauth:// link as text) and
 * the code form. After a wrong code the key is not shown again (it is stored encrypted only): the form, and a way
 * to start over.
 */
export function setupPage(page: SignedInRequest, setup: { secret: string; uri: string } | null, error: string | null = null): SafeHtml {
  const t = text(page);
  const key = setup
    ? html`<p>${t('setupStep1')}</p><h2>${t('setupKey')}</h2>${secretOnce(page, 'totp-secret', setup.secret, t('copy'), t('copied'))}
<h2>${t('setupUri')}</h2><p><a href="${setup.uri}" dir="ltr"><code data-totp-uri>${setup.uri}</code></a></p>`
    : null;
  return html`<h1>${t('setupTitle')}</h1><div class="card">${key}${error ? banner('error', error) : null}
<form method="post" action="${securityPath(page)}/totp/enable" data-form="totp-enable">${csrfField(page)}<p>${t('setupStep2')}</p>
<label for="totp-code">${t('code')}</label><input id="totp-code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="10" aria-describedby="totp-code-hint"><p class="hint" id="totp-code-hint">${t('codeHint')}</p>
<div class="actions"><button type="submit">${t('enable')}</button></div></form></div>
<div class="card"><p>${t('setupAgain')}</p>${startForm(page, 'startAgain', true)}</div>`;
}

/** The 10 recovery codes, shown this once: when TOTP was turned on, or when they were renewed. */
export function recoveryCodesPage(page: SignedInRequest, codes: string[], renewed = false): SafeHtml {
  const t = text(page);
  return html`<h1>${t(renewed ? 'renewedTitle' : 'codesTitle')}</h1><div class="card"><p>${t(renewed ? 'renewedIntro' : 'codesIntro')}</p>
<ol data-recovery-codes>${codes.map((code) => html`<li><code>${code}</code></li>`)}</ol></div>
<p><a href="${securityPath(page)}">${t('back')}</a></p>`;
}
