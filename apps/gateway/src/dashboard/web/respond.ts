import type { FastifyReply } from 'fastify';
import { html, type SafeHtml } from '../../checkout/page/html';
import type { PageRequest, SignedInRequest } from '../session/dashboard-auth';
import { frameText } from './frame-messages';
import { renderPage, type Section } from './layout';

/** Headers of every dashboard page: nothing from elsewhere, forms post only here, never framed or cached. */
export function pageHeaders(nonce: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    'referrer-policy': 'same-origin',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
  };
}

/** Sends a signed-out page. */
export async function sendPublicPage(reply: FastifyReply, page: PageRequest, title: string, content: SafeHtml, status = 200): Promise<void> {
  await reply.code(status).headers(pageHeaders(page.nonce)).send(renderPage({ lang: page.lang, nonce: page.nonce, title, csrf: page.csrf, path: page.path }, content));
}

/** Sends a signed-in page of `section`, framed with the environment switch, navigation and verification banner. */
export async function sendPage(reply: FastifyReply, page: SignedInRequest, section: Section, title: string, content: SafeHtml, status = 200): Promise<void> {
  const merchant = page.user.merchant;
  const frame = {
    lang: page.lang,
    nonce: page.nonce,
    title,
    csrf: page.csrf,
    path: page.path,
    signedIn: {
      email: page.user.email,
      merchantName: merchant.name,
      verificationStatus: merchant.verificationStatus,
      rejectionReason: merchant.rejectionReason,
      environment: page.environment,
      section,
    },
  };
  await reply.code(status).headers(pageHeaders(page.nonce)).send(renderPage(frame, content));
}

/** A message page (not found, not allowed, form expired, ...), signed in or not. */
export async function sendMessage(
  reply: FastifyReply,
  page: PageRequest | SignedInRequest,
  status: number,
  kind: 'notFound' | 'forbidden' | 'formExpired' | 'unavailable',
  section: Section = 'home',
): Promise<void> {
  const t = (key: Parameters<typeof frameText>[1], vars?: Record<string, string>) => frameText(page.lang, key, vars);
  const role = 'user' in page ? page.user.role : '';
  const content = html`<div class="card"><h1>${t(`${kind}Title`)}</h1><p>${t(`${kind}Body`, { role })}</p></div>`;
  if ('user' in page) return sendPage(reply, page, section, t(`${kind}Title`), content, status);
  return sendPublicPage(reply, page, t(`${kind}Title`), content, status);
}

/** A hidden CSRF field for a form of `page`. */
export function csrfField(page: PageRequest): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${page.csrf}">`;
}
