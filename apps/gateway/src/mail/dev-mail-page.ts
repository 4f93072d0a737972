// The development mail page (MAIL_TRANSPORT=page): what the gateway would have e-mailed, newest first, with each
// message's text and its links clickable. Server-rendered through the checkout's escaping template; no script.
import { html, SafeHtml } from '../checkout/page/html';
import type { StoredMail } from './mail-outbox.repository';

const STYLE = new SafeHtml(`
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f4f5f7}
main{max-width:48rem;margin:0 auto;padding:1rem;overflow-wrap:anywhere}
h1{font-size:1.35rem;margin:0 0 .25rem}
p.hint{color:#4a4f57;margin:0 0 1rem}
ol{list-style:none;margin:0;padding:0}
li{background:#fff;border:1px solid #d9dce1;border-radius:.5rem;padding:.75rem;margin:0 0 .5rem}
.meta{color:#4a4f57;font-size:.875rem}
.card{background:#fff;border:1px solid #d9dce1;border-radius:.5rem;padding:1rem}
dl{display:grid;grid-template-columns:auto minmax(0,1fr);gap:.25rem 1rem;margin:0 0 1rem}
dt{color:#4a4f57}
dd{margin:0;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;font:15px/1.5 ui-monospace,Menlo,Consolas,monospace;margin:0;border-top:1px solid #e6e8eb;padding-top:1rem}
a{color:#1f4fd1}
a:focus-visible{outline:3px solid #f0a500;outline-offset:2px}
`);

// http(s) links only; a closing bracket or sentence punctuation right after one is the text's, not the link's.
const LINK = /https?:\/\/[^\s<>"']+/g;
const TRAILING = /[.,;:!?)\]]+$/;

/** The http(s) links of a text, in order. */
export function linksIn(text: string): string[] {
  return [...text.matchAll(LINK)].map((match) => match[0].replace(TRAILING, ''));
}

/** The text, escaped, with its http(s) links as anchors. */
function linkified(text: string): SafeHtml {
  const parts: Array<SafeHtml | string> = [];
  let from = 0;
  for (const match of text.matchAll(LINK)) {
    const link = match[0].replace(TRAILING, '');
    parts.push(text.slice(from, match.index), html`<a href="${link}">${link}</a>`);
    from = match.index + link.length;
  }
  parts.push(text.slice(from));
  return html`${parts}`;
}

function status(mail: StoredMail): string {
  if (mail.sentAt) return `sent ${mail.sentAt.toISOString()}`;
  if (mail.givenUpAt) return `given up ${mail.givenUpAt.toISOString()}`;
  return 'kept here (not sent: MAIL_TRANSPORT=page)';
}

function page(title: string, nonce: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main>${body}</main></body></html>`.toString();
}

export function renderMailList(mails: readonly StoredMail[], nonce: string): string {
  const items = mails.map(
    (mail) => html`<li><a href="/dev/mail/${mail.id}">${mail.subject}</a>
<div class="meta">To ${mail.to} · ${mail.kind} · <time datetime="${mail.createdAt.toISOString()}">${mail.createdAt.toISOString()}</time></div></li>`,
  );
  return page(
    'Development mail',
    nonce,
    html`<h1>Development mail</h1>
<p class="hint">What the gateway would have e-mailed, newest first. Nothing is sent while MAIL_TRANSPORT=page.</p>
${mails.length === 0 ? html`<p>No messages yet.</p>` : html`<ol>${items}</ol>`}`,
  );
}

export function renderMail(mail: StoredMail, nonce: string): string {
  return page(
    mail.subject,
    nonce,
    html`<p><a href="/dev/mail">All messages</a></p>
<div class="card"><h1>${mail.subject}</h1>
<dl><dt>To</dt><dd>${mail.to}</dd><dt>Kind</dt><dd>${mail.kind}</dd>
<dt>Written</dt><dd><time datetime="${mail.createdAt.toISOString()}">${mail.createdAt.toISOString()}</time></dd><dt>Status</dt><dd>${status(mail)}</dd></dl>
<pre>${linkified(mail.text)}</pre></div>`,
  );
}

/** A message as the JSON form shows it (scripts and tests read links from it). */
export function mailJson(mail: StoredMail): Record<string, unknown> {
  return {
    id: mail.id,
    kind: mail.kind,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    links: linksIn(mail.text),
    created_at: mail.createdAt.toISOString(),
    attempts: mail.attempts,
    sent_at: mail.sentAt?.toISOString() ?? null,
    given_up_at: mail.givenUpAt?.toISOString() ?? null,
    last_error: mail.lastError,
  };
}
