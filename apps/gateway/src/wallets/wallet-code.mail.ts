import { escapeHtml } from '../checkout/page/html';
import type { OutgoingMail } from '../mail/outgoing-mail';
import type { WalletEnvironment } from './domain/wallet-session';

export type WalletMailLanguage = 'en' | 'ar';

const TEXTS = {
  en: {
    subject: (test: boolean) => (test ? '[Test] Your wallet sign-in code' : 'Your wallet sign-in code'),
    lead: 'Your code to sign in to your wallet:',
    rules: 'It works once, for 10 minutes. Nobody from the shop or from us will ask you for it.',
    ignore: 'If you did not ask for it, ignore this message: nothing happens without the code.',
    test: 'This is a test wallet: no real money.',
  },
  ar: {
    subject: (test: boolean) => (test ? '[اختبار] رمز الدخول إلى محفظتك' : 'رمز الدخول إلى محفظتك'),
    lead: 'رمز الدخول إلى محفظتك:',
    rules: 'يعمل الرمز مرة واحدة خلال 10 دقائق. لن يطلبه منك أحد، لا المتجر ولا نحن.',
    ignore: 'إن لم تطلبه فتجاهل هذه الرسالة: لا يحدث شيء دون الرمز.',
    test: 'هذه محفظة اختبار: لا أموال حقيقية.',
  },
} as const;

/** The e-mail with a wallet sign-in code (kind `wallet_code`), in the language of the page it was asked on. */
export function walletCodeMail(to: string, code: string, environment: WalletEnvironment, language: WalletMailLanguage): OutgoingMail {
  const t = TEXTS[language];
  const test = environment === 'test';
  const lines = [t.lead, '', code, '', t.rules, t.ignore, ...(test ? ['', t.test] : [])];
  const dir = language === 'ar' ? 'rtl' : 'ltr';
  const html =
    `<!doctype html><html lang="${language}" dir="${dir}"><body style="font-family:sans-serif">` +
    `<p>${escapeHtml(t.lead)}</p><p style="font-size:1.75em;font-weight:bold;letter-spacing:.2em" dir="ltr">${escapeHtml(code)}</p>` +
    `<p>${escapeHtml(t.rules)}</p><p>${escapeHtml(t.ignore)}</p>${test ? `<p>${escapeHtml(t.test)}</p>` : ''}</body></html>`;
  return { to, subject: t.subject(test), text: lines.join('\n'), html, kind: 'wallet_code' };
}
