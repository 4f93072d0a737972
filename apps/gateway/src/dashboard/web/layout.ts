import type { Environment } from '@payments/ids';
import { html, SafeHtml } from '../../checkout/page/html';
import type { DashboardLanguage } from './i18n';
import { frameText } from './frame-messages';

/** The sections of a signed-in dashboard, in the navigation's order; each is `/dashboard/<env>/<section>`. */
export const SECTIONS = ['home', 'payments', 'payment-intents', 'invoices', 'refunds', 'balance', 'developers', 'team', 'verification', 'security'] as const;
export type Section = (typeof SECTIONS)[number];

const SECTION_LABEL: Record<Section, Parameters<typeof frameText>[1]> = {
  home: 'navHome',
  payments: 'navPayments',
  'payment-intents': 'navIntents',
  invoices: 'navInvoices',
  refunds: 'navRefunds',
  balance: 'navBalance',
  developers: 'navDevelopers',
  team: 'navTeam',
  verification: 'navVerification',
  security: 'navSecurity',
};

/** Who is looking, for the frame: the environment switch, the verification banner, the sign-out form. */
export interface SignedInFrame {
  email: string;
  merchantName: string;
  verificationStatus: string;
  rejectionReason: string | null;
  environment: Environment;
  section: Section;
}

export interface PageFrame {
  lang: DashboardLanguage;
  /** The response's CSP nonce for the inline style (and script, where a page has one). */
  nonce: string;
  title: string;
  /** A CSRF token for this page's forms. */
  csrf: string;
  /** The page's path and query, for the language switch. */
  path: string;
  signedIn?: SignedInFrame;
}

// Raw text inside <style> is not entity-escaped: a constant of this file, never data.
const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans Arabic",sans-serif;color:#1a1a1a;background:#f4f5f7}
a{color:#1f4fd1}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible{outline:3px solid #f2a900;outline-offset:2px}
.skip{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}.skip:focus{width:auto;height:auto;clip-path:none;inset-inline-start:.5rem;top:.5rem;background:#fff;padding:.5rem;z-index:9}
header .top{background:#13233f;color:#fff;padding:.5rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between}
header .top a,header .top button.link{color:#fff}
.brand{font-weight:700;overflow-wrap:anywhere}
.envbar{padding:.4rem 1rem;font-weight:600;display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;justify-content:space-between}
.envbar.test{background:#ffe7b3;color:#4a3200}.envbar.live{background:#d9f2e3;color:#0c3b20}
.envbar a{color:inherit}
nav.sections ul{list-style:none;margin:0;padding:.25rem .5rem;display:flex;flex-wrap:wrap;gap:.25rem;background:#fff;border-bottom:1px solid #d5d8dd}
nav.sections a{display:inline-block;padding:.4rem .6rem;border-radius:.4rem;text-decoration:none;color:#1f2a3a}
nav.sections a[aria-current=page]{background:#e3e9fb;color:#10307f;font-weight:600}
main{max-width:72rem;margin:0 auto;padding:1rem}
h1{font-size:1.4rem;margin:.25rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.1rem;margin:1.5rem 0 .5rem;overflow-wrap:anywhere}
.card{background:#fff;border:1px solid #d5d8dd;border-radius:.6rem;padding:1rem;margin:0 0 1rem}
.card>:is(h2,p,label):first-child{margin-top:0}.card>p:last-child{margin-bottom:0}
.banner{border-radius:.5rem;padding:.75rem 1rem;margin:0 0 1rem;border:1px solid}
.banner.warn{background:#fff4d6;border-color:#c98a00;color:#3d2a00}
.banner.error{background:#fde8e8;border-color:#c62828;color:#5a1010}
.banner.ok{background:#e3f5ea;border-color:#2e7d4f;color:#0c3b20}
.banner.info{background:#e8effd;border-color:#3d63c9;color:#10307f}
label{display:block;font-weight:600;margin:.75rem 0 .25rem;overflow-wrap:anywhere}
fieldset{min-width:0}
input,select,textarea{font:inherit;padding:.45rem .6rem;border:1px solid #767c85;border-radius:.4rem;width:100%;max-width:28rem;background:#fff;color:#1a1a1a}
input[type=checkbox],input[type=radio]{width:auto}
.hint{color:#4a4f57;font-size:.9rem;margin:.2rem 0 0}
button,.button{display:inline-block;font:inherit;font-weight:600;min-height:2.5rem;padding:.45rem 1rem;border-radius:.45rem;border:1px solid #1f4fd1;background:#1f4fd1;color:#fff;cursor:pointer;text-decoration:none}
button.secondary,.button.secondary{background:#fff;color:#1f4fd1}
button.danger{background:#b3261e;border-color:#b3261e;color:#fff}
button.link{background:none;border:none;color:#1f4fd1;text-decoration:underline;padding:0;min-height:0;font-weight:400}
form.inline{display:inline}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin:1rem 0 0}
.table-wrap{overflow-x:auto;background:#fff;border:1px solid #d5d8dd;border-radius:.6rem}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:start;padding:.5rem .6rem;border-bottom:1px solid #e4e6ea;white-space:nowrap}
th{background:#f7f8fa;font-weight:600}
td.num,th.num{text-align:end;font-variant-numeric:tabular-nums}
dl.fields{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:.35rem 1rem;margin:0}
dl.fields dt{color:#4a4f57}dl.fields dd{margin:0;overflow-wrap:anywhere}
code,.secret{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
.secret{display:block;background:#f7f8fa;border:1px dashed #767c85;padding:.5rem;border-radius:.4rem;user-select:all}
.status{display:inline-block;padding:.05rem .5rem;border-radius:1rem;background:#e4e6ea;color:#1a1a1a;font-size:.85rem}
.status.good{background:#d9f2e3;color:#0c3b20}.status.bad{background:#fde8e8;color:#5a1010}.status.wait{background:#fff4d6;color:#3d2a00}
footer{max-width:72rem;margin:0 auto;padding:1rem;color:#4a4f57;font-size:.9rem}
@media (max-width:40rem){main{padding:.75rem}dl.fields{grid-template-columns:1fr}dl.fields dd{margin-bottom:.4rem}}
`;

/** The path of a section in an environment. */
export function sectionPath(environment: Environment, section: Section): string {
  return `/dashboard/${environment}/${section}`;
}

function withLang(path: string, lang: DashboardLanguage): string {
  const url = new URL(path, 'http://x');
  url.searchParams.set('lang', lang);
  return `${url.pathname}${url.search}`;
}

function banner(lang: DashboardLanguage, signedIn: SignedInFrame): SafeHtml | null {
  if (signedIn.verificationStatus === 'verified' || signedIn.section === 'verification') return null;
  const text =
    signedIn.verificationStatus === 'pending'
      ? frameText(lang, 'bannerPending')
      : signedIn.verificationStatus === 'rejected'
        ? frameText(lang, 'bannerRejected', { reason: signedIn.rejectionReason ?? '' })
        : frameText(lang, 'bannerUnverified');
  const action = signedIn.verificationStatus === 'pending' ? null : html` <a href="${sectionPath(signedIn.environment, 'verification')}">${frameText(lang, 'bannerAction')}</a>`;
  return html`<div class="banner warn" role="status" data-banner="verification">${text}${action}</div>`;
}

/** A whole dashboard page: the frame (signed in: environment bar, navigation, banner) around `content`. */
export function renderPage(frame: PageFrame, content: SafeHtml): string {
  const { lang } = frame;
  const t = (key: Parameters<typeof frameText>[1], vars?: Record<string, string>) => frameText(lang, key, vars);
  const s = frame.signedIn;
  const other: Environment | undefined = s ? (s.environment === 'test' ? 'live' : 'test') : undefined;
  const top = s
    ? html`<header><div class="top"><span class="brand">${t('product')} · ${s.merchantName}</span>
<span>${t('signedInAs')} <bdi>${s.email}</bdi> · <a href="${withLang(frame.path, t('languageCode') as DashboardLanguage)}" lang="${t('languageCode')}">${t('language')}</a>
<form class="inline" method="post" action="/dashboard/logout"><input type="hidden" name="_csrf" value="${frame.csrf}"><button type="submit" class="link">${t('signOut')}</button></form></span></div>
<div class="envbar ${s.environment}" data-environment="${s.environment}"><span>${t('environment')}: ${t(s.environment)} — ${t(s.environment === 'test' ? 'viewingTest' : 'viewingLive')}</span>
<a href="${sectionPath(other!, s.section)}" data-switch-environment="${other}">${t('switchTo', { env: t(other!) })}</a></div></header>
<nav class="sections" aria-label="${t('nav')}"><ul>${SECTIONS.map(
        (section) => html`<li><a href="${sectionPath(s.environment, section)}"${section === s.section ? html` aria-current="page"` : ''}>${t(SECTION_LABEL[section])}</a></li>`,
      )}</ul></nav>`
    : html`<header><div class="top"><span class="brand">${t('product')}</span><a href="${withLang(frame.path, t('languageCode') as DashboardLanguage)}" lang="${t('languageCode')}">${t('language')}</a></div></header>`;
  return html`<!doctype html>
<html lang="${lang}" dir="${t('dir')}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${frame.title} · ${t('product')}</title><style nonce="${frame.nonce}">${STYLE_HTML}</style></head>
<body><a class="skip" href="#content">${t('skip')}</a>${top}
<main id="content">${s ? banner(lang, s) : null}${content}</main></body></html>`.value;
}

const STYLE_HTML = new SafeHtml(STYLE);
