import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import argon2 from 'argon2';
import { randomBytes } from 'node:crypto';
import { freePort, REPO_ROOT, startStack, startTestSmtpServer, type AppName, type Stack, type TestSmtpServer } from '@payments/testing';

// The dashboard in a real browser (Debian's chromium through playwright-core), as merchants use it: a gateway whose
// PUBLIC_BASE_URL is its own address (forms are checked against that origin), mail to a real SMTP server in this
// process, axe-core on every page, 360 px screenshots in .cache/screenshots/dashboard-*.png.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = join(REPO_ROOT, '.cache', 'screenshots');
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface DashboardStack {
  stack: Stack;
  smtp: TestSmtpServer;
  browser: Browser;
  /** The gateway's address, also its PUBLIC_BASE_URL. */
  url: string;
  stop(): Promise<void>;
}

/** A stack of `apps` (the gateway last), an SMTP server the gateway mails to, and a browser. */
export async function startDashboardStack(apps: AppName[], env: Record<string, string> = {}): Promise<DashboardStack> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (npm test installs it)`);
  const smtp = await startTestSmtpServer();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const stack = await startStack(
    apps,
    // The sessions service names checkout pages at PUBLIC_BASE_URL too: the pages' checkout links lead to this gateway.
    { RATE_LIMIT_TEST_PER_SEC: '10000', WEBHOOK_ALLOW_INSECURE_TARGETS: '1', PUBLIC_BASE_URL: url, ...env },
    { gateway: { PORT: String(port), PUBLIC_BASE_URL: url, MAIL_TRANSPORT: 'smtp', SMTP_URL: smtp.url, MAIL_POLL_MS: '200', ...env } },
  );
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  return {
    stack,
    smtp,
    browser,
    url,
    async stop() {
      await browser.close().catch(() => undefined);
      await stack.stop();
      await smtp.stop();
    },
  };
}

/** A fresh browser profile (no cookies) at a phone's width unless told otherwise. */
export async function newTab(dashboard: DashboardStack, options: { width?: number; locale?: string } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await dashboard.browser.newContext({
    viewport: { width: options.width ?? 360, height: 800 },
    ...(options.locale ? { locale: options.locale, extraHTTPHeaders: { 'accept-language': options.locale } } : {}),
  });
  return { context, page: await context.newPage() };
}

export async function axeViolations(page: Page): Promise<Array<{ id: string; nodes: number; targets: string[] }>> {
  await page.evaluate(AXE);
  const result = (await page.evaluate('axe.run()')) as { violations: Array<{ id: string; nodes: Array<{ target: string[] }> }> };
  return result.violations.map((v) => ({ id: v.id, nodes: v.nodes.length, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
}

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `dashboard-${name}.png`), fullPage: true });
}

/** Checks a page with axe and keeps its screenshot, in English and then in Arabic (the same URL with ?lang=). */
export async function checkPage(page: Page, name: string): Promise<void> {
  for (const lang of ['en', 'ar'] as const) {
    const url = new URL(page.url());
    url.searchParams.set('lang', lang);
    await page.goto(url.href);
    expect({ page: `${name} (${lang})`, violations: await axeViolations(page) }).toEqual({ page: `${name} (${lang})`, violations: [] });
    await shot(page, `${name}-${lang}`);
  }
  // Back to English for the steps after (the choice is remembered in a cookie).
  const url = new URL(page.url());
  url.searchParams.set('lang', 'en');
  await page.goto(url.href);
}

/** A link of a mail's text that starts with `prefix`. */
export function linkIn(text: string, prefix: string): string {
  const match = text.match(new RegExp(`${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[^\\s]+`));
  if (!match) throw new Error(`no link ${prefix}… in: ${text}`);
  return match[0];
}

/** Signs in through the page; answers when the dashboard is showing. */
export async function signIn(dashboard: Pick<DashboardStack, 'url'>, page: Page, email: string, password: string): Promise<void> {
  await page.goto(`${dashboard.url}/dashboard/login`);
  // By the fields' ids, so it works in either language.
  await page.locator('#email').fill(email);
  await page.locator('#password').fill(password);
  await Promise.all([page.waitForURL(/\/dashboard\/(test|live)\//), page.locator('form[action="/dashboard/login"] button[type=submit]').click()]);
}

/**
 * A confirmed user of a merchant with `role`, written straight into the gateway's schema (as sign-up or an accepted
 * invitation leaves one): for tests of pages other than sign-up.
 */
export async function createUser(stack: Stack, merchantId: string, role: 'owner' | 'developer' | 'viewer'): Promise<{ id: string; email: string; password: string }> {
  const id = `usr_${randomBytes(18).toString('base64url').replace(/[^A-Za-z0-9]/g, '').padEnd(24, 'x').slice(0, 24)}`;
  const email = `${role}-${id.slice(4, 14).toLowerCase()}@example.com`;
  const password = `pw-${randomBytes(9).toString('base64url')}`;
  const hash = await argon2.hash(password, { type: argon2.argon2id });
  const db = await stack.db.dataSource('gateway');
  await db.query(`INSERT INTO gateway.users (id, merchant_id, email, password_hash, role, email_confirmed_at) VALUES ($1, $2, $3, $4, $5, now())`, [id, merchantId, email, hash, role]);
  return { id, email, password };
}
