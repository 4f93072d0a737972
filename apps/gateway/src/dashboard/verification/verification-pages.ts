import { html, type SafeHtml } from '../../checkout/page/html';
import { COUNTRY_CODES } from '../../accounts/countries';
import { can } from '../../accounts/roles';
import type { VerificationDetails, VerificationField } from '../../accounts/verification';
import type { MerchantEntity } from '../../merchants/merchant.entity';
import { SUBMITTABLE_FROM } from '../../accounts/verification';
import { shownTime } from '../developers/developer-forms';
import type { SignedInRequest } from '../session/dashboard-auth';
import type { DashboardLanguage } from '../web/i18n';
import { sectionPath } from '../web/layout';
import { csrfField } from '../web/respond';
import { verificationText, type VerificationKey } from './verification-messages';

type Vars = Record<string, string | number>;
const text = (lang: DashboardLanguage) => (key: VerificationKey, vars?: Vars) => verificationText(lang, key, vars);

export const verificationPath = (page: Pick<SignedInRequest, 'environment'>): string => sectionPath(page.environment, 'verification');

/** The form's inputs: their names in the form and the details they carry. */
export const VERIFICATION_INPUTS: ReadonlyArray<{ field: VerificationField; name: string }> = [
  { field: 'businessName', name: 'business_name' },
  { field: 'country', name: 'country' },
  { field: 'ownerName', name: 'owner_name' },
  { field: 'contact', name: 'contact' },
];

const countryOptions = new Map<DashboardLanguage, Array<{ code: string; name: string }>>();

/** Every ISO 3166-1 code with its name in the page's language, sorted by that name (computed once per language). */
export function countriesIn(lang: DashboardLanguage): Array<{ code: string; name: string }> {
  let list = countryOptions.get(lang);
  if (!list) {
    const names = new Intl.DisplayNames([lang], { type: 'region', fallback: 'code' });
    list = [...COUNTRY_CODES].map((code) => ({ code, name: names.of(code) ?? code })).sort((a, b) => a.name.localeCompare(b.name, lang));
    countryOptions.set(lang, list);
  }
  return list;
}

export interface VerificationView {
  /** The values as typed, kept when the form comes back. */
  values?: Partial<VerificationDetails>;
  /** The field the service refused, with the words to show next to it. */
  fieldError?: { field: VerificationField; message: string };
  formError?: string;
  submitted?: boolean;
}

type MerchantDetails = Pick<
  MerchantEntity,
  'verificationStatus' | 'rejectionReason' | 'businessName' | 'country' | 'ownerName' | 'contact' | 'verificationSubmittedAt' | 'verificationDecidedAt'
>;

const STATUS_TONE = { unverified: '', pending: 'wait', verified: 'good', rejected: 'bad' } as const;

/** The verification status with its reason, the details sent, and for an owner while it may be sent, the form. */
export function verificationPage(page: SignedInRequest, merchant: MerchantDetails, view: VerificationView = {}): SafeHtml {
  const t = text(page.lang);
  const status = merchant.verificationStatus;
  const owner = can(page.user.role, 'manage_verification');
  const submittable = SUBMITTABLE_FROM.includes(status);
  const country = merchant.country ? (countriesIn(page.lang).find((c) => c.code === merchant.country)?.name ?? merchant.country) : '';
  // Names as written (either direction); contact and times left to right in an Arabic page too.
  const details =
    merchant.verificationSubmittedAt !== null
      ? html`<h2 id="details-heading">${t('detailsHeading')}</h2><section class="card" aria-labelledby="details-heading"><dl class="fields" data-details>
<dt>${t('businessName')}</dt><dd dir="auto">${merchant.businessName ?? ''}</dd><dt>${t('country')}</dt><dd>${country}</dd>
<dt>${t('ownerName')}</dt><dd dir="auto">${merchant.ownerName ?? ''}</dd><dt>${t('contact')}</dt><dd><bdi dir="ltr">${merchant.contact ?? ''}</bdi></dd>
<dt>${t('submittedAt')}</dt><dd><bdi dir="ltr">${shownTime(merchant.verificationSubmittedAt)}</bdi></dd>${merchant.verificationDecidedAt ? html`<dt>${t('decidedAt')}</dt><dd><bdi dir="ltr">${shownTime(merchant.verificationDecidedAt)}</bdi></dd>` : null}</dl></section>`
      : null;
  const form = submittable ? (owner ? detailsForm(page, merchant, view) : html`<div class="banner info" data-view-only>${t('ownersOnly')}</div>`) : null;
  return html`<h1>${t('title')}</h1>${view.submitted ? html`<div class="banner ok" role="status" data-notice="submitted">${t('submitted')}</div>` : null}
<section class="card" aria-label="${t('statusLabel')}"><p><strong>${t('statusLabel')}:</strong> <span class="status ${STATUS_TONE[status]}" data-verification-status="${status}">${t(status)}</span></p>
<p>${t(`${status}Body`)}</p>${status === 'rejected' && merchant.rejectionReason ? html`<dl class="fields"><dt>${t('reasonLabel')}</dt><dd dir="auto" data-rejection-reason>${merchant.rejectionReason}</dd></dl>` : null}</section>
${form}${details}`;
}

function detailsForm(page: SignedInRequest, merchant: MerchantDetails, view: VerificationView): SafeHtml {
  const t = text(page.lang);
  // After a rejection the details sent before are there to correct; after a refused post, what was typed.
  const value = (field: VerificationField): string => view.values?.[field] ?? merchant[field] ?? '';
  const invalid = (field: VerificationField) => view.fieldError?.field === field;
  const describedBy = (field: VerificationField, hint: boolean) =>
    [hint ? `${field}-hint` : '', invalid(field) ? `${field}-error` : ''].filter(Boolean).join(' ');
  const attrs = (field: VerificationField, hint: boolean): SafeHtml => {
    const ids = describedBy(field, hint);
    return html`${ids ? html` aria-describedby="${ids}"` : null}${invalid(field) ? html` aria-invalid="true"` : null}`;
  };
  const error = (field: VerificationField) =>
    invalid(field) ? html`<p class="hint" id="${field}-error" data-field-error="${field}"><span class="status bad">${t('fieldError', { message: view.fieldError!.message })}</span></p>` : null;
  const chosen = value('country').toUpperCase();
  return html`<h2 id="form-heading">${t('formHeading')}</h2><form method="post" action="${verificationPath(page)}" class="card" data-form="verification" aria-labelledby="form-heading" novalidate>${csrfField(page)}
${view.formError ? html`<div class="banner error" role="alert" data-error>${t('formError', { message: view.formError })}</div>` : null}
${view.fieldError ? html`<div class="banner error" role="alert" data-error>${t('formError', { message: view.fieldError.message })}</div>` : null}
<p class="hint">${t('formIntro')}</p>
<label for="businessName">${t('businessName')}</label><input id="businessName" name="business_name" dir="auto" required maxlength="200" autocomplete="organization" value="${value('businessName')}"${attrs('businessName', true)}>
<p class="hint" id="businessName-hint">${t('businessNameHint')}</p>${error('businessName')}
<label for="country">${t('country')}</label><select id="country" name="country" required${attrs('country', false)}><option value="">${t('chooseCountry')}</option>${countriesIn(page.lang).map(
    (c) => html`<option value="${c.code}"${c.code === chosen ? html` selected` : null}>${c.name}</option>`,
  )}</select>${error('country')}
<label for="ownerName">${t('ownerName')}</label><input id="ownerName" name="owner_name" dir="auto" required maxlength="200" autocomplete="name" value="${value('ownerName')}"${attrs('ownerName', false)}>${error('ownerName')}
<label for="contact">${t('contact')}</label><input id="contact" name="contact" dir="auto" required maxlength="254" value="${value('contact')}"${attrs('contact', true)}>
<p class="hint" id="contact-hint">${t('contactHint')}</p>${error('contact')}
<div class="actions"><button type="submit">${t('submit')}</button></div></form>`;
}
