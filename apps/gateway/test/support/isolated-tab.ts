import type { Browser, BrowserContext, Page } from 'playwright-core';

export interface IsolatedTabOptions {
  locale?: string;
  width?: number;
  height?: number;
  javaScript?: boolean;
}

/**
 * A browser tab on its own context that aborts and records every request leaving `origin`: the hosted pages must
 * make none (any other request would be a third-party one).
 */
export async function isolatedTab(browser: Browser, origin: string, options: IsolatedTabOptions = {}): Promise<{ context: BrowserContext; page: Page; foreign: string[] }> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 800, height: options.height ?? 900 },
    javaScriptEnabled: options.javaScript ?? true,
    ...(options.locale ? { locale: options.locale, extraHTTPHeaders: { 'accept-language': options.locale } } : {}),
  });
  const foreign: string[] = [];
  await context.route((url) => !url.href.startsWith(origin), (route) => {
    foreign.push(route.request().url());
    return route.abort();
  });
  return { context, page: await context.newPage(), foreign };
}
