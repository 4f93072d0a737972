import { html, type SafeHtml } from '../../checkout/page/html';
import { AccountError } from '../../accounts/account.error';
import type { Invitation, TeamMember } from '../../accounts/accounts.service';
import { can, ROLES, type Role } from '../../accounts/roles';
import { shownTime } from '../developers/developer-forms';
import type { SignedInRequest } from '../session/dashboard-auth';
import type { DashboardLanguage } from '../web/i18n';
import { sectionPath } from '../web/layout';
import { csrfField } from '../web/respond';
import { teamText, type TeamKey } from './team-messages';

type Vars = Record<string, string | number>;
const text = (lang: DashboardLanguage) => (key: TeamKey, vars?: Vars) => teamText(lang, key, vars);

export const teamPath = (page: Pick<SignedInRequest, 'environment'>): string => sectionPath(page.environment, 'team');
const userPath = (page: SignedInRequest, userId: string): string => `${teamPath(page)}/users/${encodeURIComponent(userId)}`;

/** What the page says after an action that redirected back to it (post/redirect/get): only these. */
export const TEAM_NOTICES = ['invited', 'cancelled', 'role_changed', 'removed'] as const;
export type TeamNotice = (typeof TEAM_NOTICES)[number];

export function teamNoticeOf(value: unknown): TeamNotice | null {
  return typeof value === 'string' && (TEAM_NOTICES as readonly string[]).includes(value) ? (value as TeamNotice) : null;
}

/** A role's name in the page's language. */
export function roleName(lang: DashboardLanguage, role: Role): string {
  return teamText(lang, role);
}

/**
 * The words for a refusal of the accounts the user can act on (bad address, last owner, ...), or null for one the
 * page does not show as a message (not found, forbidden: those are the 404 and 403 pages).
 */
export function teamRefusal(lang: DashboardLanguage, error: unknown): string | null {
  if (!(error instanceof AccountError)) return null;
  const t = text(lang);
  switch (error.reason) {
    case 'invalid_email':
      return t('errorEmail');
    case 'email_taken':
      return t('errorEmailTaken');
    case 'invalid':
      return t('errorRole');
    case 'last_owner':
      return t('errorLastOwner');
    default:
      return null;
  }
}

export interface TeamView {
  notice?: TeamNotice | null;
  /** A refusal, shown above the form it came from. */
  error?: { form: 'invite' | 'users' | 'invitations'; message: string };
  invite?: { email: string; role: string };
}

function refusal(lang: DashboardLanguage, message: string): SafeHtml {
  return html`<div class="banner error" role="alert" data-error>${text(lang)('refused', { message })}</div>`;
}

// Addresses and times read left to right inside an Arabic page too.
const ltr = (value: string): SafeHtml => html`<bdi dir="ltr">${value}</bdi>`;

const yesNo = (t: ReturnType<typeof text>, value: boolean, good: boolean): SafeHtml =>
  html`<span class="status ${value === good ? 'good' : 'bad'}">${t(value ? 'yes' : 'no')}</span>`;

function roleSelect(lang: DashboardLanguage, id: string, chosen: string, label?: string): SafeHtml {
  return html`<select id="${id}" name="role"${label ? html` aria-label="${label}"` : null}>${ROLES.map(
    (role) => html`<option value="${role}"${role === chosen ? html` selected` : null}>${roleName(lang, role)}</option>`,
  )}</select>`;
}

/** The team: users and open invitations; an owner's forms to invite, cancel, change roles and remove. */
export function teamPage(page: SignedInRequest, users: TeamMember[], invitations: Invitation[], view: TeamView = {}): SafeHtml {
  const t = text(page.lang);
  const manage = can(page.user.role, 'manage_team');
  const error = (form: NonNullable<TeamView['error']>['form']) => (view.error?.form === form ? refusal(page.lang, view.error.message) : null);
  const userRows = users.map((user, i) => {
    const self = user.id === page.user.id;
    const actions = manage
      ? html`<td><form class="inline" method="post" action="${userPath(page, user.id)}/role" data-form="change-role">${csrfField(page)}${roleSelect(page.lang, `role-${i}`, user.role, t('roleOf', { email: user.email }))}
<button type="submit" class="secondary">${t('saveRole')}</button></form> <a href="${userPath(page, user.id)}/remove" data-remove="${user.id}">${t('remove')}</a></td>`
      : null;
    return html`<tr data-user="${user.email}" data-role="${user.role}"><td>${ltr(user.email)}${self ? html` ${t('you')}` : null}</td><td>${roleName(page.lang, user.role)}</td>
<td>${yesNo(t, user.emailConfirmed, true)}</td><td>${yesNo(t, user.totpEnabled, true)}</td><td>${yesNo(t, user.locked, false)}</td>
<td>${user.lastLoginAt ? ltr(shownTime(user.lastLoginAt)) : t('never')}</td>${actions}</tr>`;
  });
  const invitationRows = invitations.map(
    (invitation) => html`<tr data-invitation="${invitation.email}"><td>${ltr(invitation.email)}</td><td>${roleName(page.lang, invitation.role)}</td><td>${ltr(shownTime(invitation.createdAt))}</td><td>${ltr(shownTime(invitation.expiresAt))}</td>
${manage ? html`<td><form class="inline" method="post" action="${teamPath(page)}/invitations/cancel" data-form="cancel-invitation">${csrfField(page)}<input type="hidden" name="email" value="${invitation.email}"><button type="submit" class="secondary" aria-label="${t('cancelInvitationOf', { email: invitation.email })}">${t('cancelInvitation')}</button></form></td>` : null}</tr>`,
  );
  const inviteForm = manage
    ? html`<h2 id="invite-heading">${t('inviteHeading')}</h2><form method="post" action="${teamPath(page)}/invitations" class="card" data-form="invite" aria-labelledby="invite-heading">${csrfField(page)}${error('invite')}
<p class="hint">${t('inviteIntro')}</p>
<label for="invite-email">${t('email')}</label><input id="invite-email" name="email" type="email" required maxlength="254" autocomplete="off" value="${view.invite?.email ?? ''}">
<label for="invite-role">${t('role')}</label>${roleSelect(page.lang, 'invite-role', view.invite?.role ?? 'viewer')}
<div class="actions"><button type="submit">${t('invite')}</button></div></form>`
    : null;
  const notice = view.notice ? html`<div class="banner ok" role="status" data-notice="${view.notice}">${t(`done_${view.notice}`)}</div>` : null;
  return html`<h1>${t('title')}</h1>${notice}${manage ? null : html`<div class="banner info" data-view-only>${t('viewOnly')}</div>`}
<h2>${t('usersHeading')}</h2><p class="hint">${t('usersIntro')}</p>${error('users')}
<div class="table-wrap" tabindex="0"><table data-table="users"><thead><tr><th scope="col">${t('email')}</th><th scope="col">${t('role')}</th><th scope="col">${t('confirmed')}</th><th scope="col">${t('twoStep')}</th><th scope="col">${t('locked')}</th><th scope="col">${t('lastSignIn')}</th>${manage ? html`<th scope="col">${t('actions')}</th>` : null}</tr></thead><tbody>${userRows}</tbody></table></div>
<h2>${t('invitationsHeading')}</h2>${error('invitations')}
${invitations.length === 0 ? html`<p>${t('noInvitations')}</p>` : html`<div class="table-wrap" tabindex="0"><table data-table="invitations"><thead><tr><th scope="col">${t('email')}</th><th scope="col">${t('role')}</th><th scope="col">${t('invitedAt')}</th><th scope="col">${t('expiresAt')}</th>${manage ? html`<th scope="col">${t('actions')}</th>` : null}</tr></thead><tbody>${invitationRows}</tbody></table></div>`}
${inviteForm}`;
}

/** Asks before removing a user (their sessions end at once). */
export function removeUserPage(page: SignedInRequest, user: TeamMember): SafeHtml {
  const t = text(page.lang);
  return html`<h1>${t('removeTitle')}</h1><div class="card"><p>${ltr(user.email)} · ${roleName(page.lang, user.role)}</p><p>${t('removeBody')}</p>
<form method="post" action="${userPath(page, user.id)}/remove" data-form="remove-user">${csrfField(page)}<div class="actions"><button type="submit" class="danger">${t('removeConfirm')}</button> <a class="button secondary" href="${teamPath(page)}">${t('cancel')}</a></div></form></div>`;
}
