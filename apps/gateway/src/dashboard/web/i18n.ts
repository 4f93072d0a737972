// Words of the dashboard in English and Arabic (right to left). Each area of the dashboard keeps its own messages
// (defineMessages) so areas grow apart without touching each other; a key missing from Arabic is a type error.

export type DashboardLanguage = 'en' | 'ar';

export type Messages = Record<string, string>;

export interface Translator<M extends Messages> {
  (lang: DashboardLanguage, key: keyof M & string, vars?: Record<string, string | number>): string;
  messages: { en: M; ar: M };
}

/** A translator over one area's messages; `{name}` places are filled with plain text (the html template escapes it). */
export function defineMessages<M extends Messages>(messages: { en: M; ar: { [K in keyof M]: string } }): Translator<M> {
  const t = ((lang, key, vars = {}) =>
    (messages[lang] as M)[key]!.replace(/\{(\w+)\}/g, (_, name: string) => (name in vars ? String(vars[name]) : `{${name}}`))) as Translator<M>;
  t.messages = messages as { en: M; ar: M };
  return t;
}

/**
 * The language: `?lang=` (remembered in a cookie by the caller), else the cookie, else the browser's
 * Accept-Language, else English.
 */
export function chooseDashboardLanguage(query: unknown, cookie: string | undefined, acceptLanguage: string | undefined): DashboardLanguage {
  for (const candidate of [query, cookie]) if (candidate === 'ar' || candidate === 'en') return candidate;
  for (const entry of (acceptLanguage ?? '').split(',')) {
    const [tag, ...params] = entry.trim().toLowerCase().split(';');
    if (params.some((p) => p.trim() === 'q=0')) continue;
    const primary = (tag ?? '').split('-')[0];
    if (primary === 'ar' || primary === 'en') return primary;
  }
  return 'en';
}
