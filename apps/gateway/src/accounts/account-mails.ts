import type { OutgoingMail } from './mailer';
import type { MailLanguage } from './user.entity';

export type AccountMailKind = 'confirm_email' | 'password_reset' | 'unlock' | 'invitation';

interface MailText {
  subject: string;
  body: (link: string, vars: Record<string, string>) => string;
}

const TEXTS: Record<MailLanguage, Record<AccountMailKind, MailText>> = {
  en: {
    confirm_email: {
      subject: 'Confirm your e-mail address',
      body: (link) => `Welcome. Confirm your e-mail address to sign in to your dashboard:\n\n${link}\n\nThe link works once, for 48 hours. If you did not sign up, ignore this message.`,
    },
    password_reset: {
      subject: 'Reset your password',
      body: (link) => `Someone asked to reset the password of your dashboard account. To choose a new one, open:\n\n${link}\n\nThe link works once, for 1 hour. If it was not you, ignore this message: your password stays as it is.`,
    },
    unlock: {
      subject: 'Your account was locked',
      body: (link) =>
        `After 10 failed sign-in attempts your dashboard account was locked. To unlock it, open:\n\n${link}\n\nThe link works once, for 24 hours. If these attempts were not yours, reset your password as well.`,
    },
    invitation: {
      subject: 'You are invited to a merchant dashboard',
      body: (link, vars) => `${vars.inviter} invited you to the dashboard of ${vars.merchant} as ${vars.role}. To accept, choose a password here:\n\n${link}\n\nThe link works once, for 7 days.`,
    },
  },
  ar: {
    confirm_email: {
      subject: 'أكّد عنوان بريدك الإلكتروني',
      body: (link) => `مرحبًا. أكّد عنوان بريدك الإلكتروني لتسجيل الدخول إلى لوحة التحكم:\n\n${link}\n\nيعمل الرابط مرة واحدة خلال 48 ساعة. إن لم تكن أنت من أنشأ الحساب فتجاهل هذه الرسالة.`,
    },
    password_reset: {
      subject: 'إعادة تعيين كلمة المرور',
      body: (link) => `طلب أحدهم إعادة تعيين كلمة مرور حسابك في لوحة التحكم. لاختيار كلمة جديدة افتح:\n\n${link}\n\nيعمل الرابط مرة واحدة خلال ساعة. إن لم تكن أنت فتجاهل هذه الرسالة، وتبقى كلمة المرور كما هي.`,
    },
    unlock: {
      subject: 'تم قفل حسابك',
      body: (link) => `بعد 10 محاولات دخول فاشلة تم قفل حسابك في لوحة التحكم. لفتحه افتح:\n\n${link}\n\nيعمل الرابط مرة واحدة خلال 24 ساعة. إن لم تكن هذه المحاولات منك فغيّر كلمة المرور أيضًا.`,
    },
    invitation: {
      subject: 'دعوة إلى لوحة تحكم تاجر',
      body: (link, vars) => `دعاك ${vars.inviter} إلى لوحة تحكم ${vars.merchant} بدور ${vars.role}. للقبول اختر كلمة مرور هنا:\n\n${link}\n\nيعمل الرابط مرة واحدة خلال 7 أيام.`,
    },
  },
};

/** Where each link points (the dashboard's pages take the token from the query). */
export const LINK_PATHS: Record<AccountMailKind, string> = {
  confirm_email: '/dashboard/confirm',
  password_reset: '/dashboard/reset-password',
  unlock: '/dashboard/unlock',
  invitation: '/dashboard/invitations/accept',
};

export function accountLink(baseUrl: string, kind: AccountMailKind, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${LINK_PATHS[kind]}?token=${encodeURIComponent(token)}`;
}

/** A plain-text mail (links are clickable in every client; no HTML to get wrong). */
export function accountMail(kind: AccountMailKind, language: MailLanguage, to: string, link: string, vars: Record<string, string> = {}): OutgoingMail {
  const text = TEXTS[language][kind];
  return { to, subject: text.subject, text: text.body(link, vars), kind };
}

export function mailLanguageOf(language: unknown): MailLanguage {
  return language === 'ar' ? 'ar' : 'en';
}
