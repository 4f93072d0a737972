// The checkout's words in English and Arabic (right to left). The language comes from `?lang=`, else the
// browser's Accept-Language, else English.

export type Language = 'en' | 'ar';

export const MESSAGES = {
  en: {
    dir: 'ltr',
    title: 'Pay',
    payTo: 'Pay {merchant}',
    amount: 'Amount',
    description: 'For',
    timeLeft: 'Time left',
    chooseMethod: 'Choose how to pay',
    testMode: 'Test mode: no money moves. Use the buttons to succeed or decline.',
    pay: 'Pay with {method}',
    decline: 'Decline with {method}',
    notAvailable: '{method}: not available yet',
    cancel: 'Cancel payment',
    declined: 'The payment was declined. You can try again.',
    paidTitle: 'Payment received',
    paidBody: '{merchant} received your payment of {amount}.',
    reference: 'Reference',
    expiredTitle: 'This payment link has expired',
    expiredBody: 'Ask {merchant} for a new link.',
    cancelledTitle: 'Payment cancelled',
    cancelledBody: 'Nothing was charged.',
    failedTitle: 'Payment not completed',
    failedBody: 'Nothing was charged. Ask {merchant} for a new link.',
    processingTitle: 'Payment in progress',
    processingBody: 'This page shows the result once the payment completes.',
    notFoundTitle: 'Payment link not found',
    notFoundBody: 'Check the link you were given, or ask the shop for a new one.',
    unavailableTitle: 'Payment is unavailable right now',
    unavailableBody: 'Please try again in a moment.',
    language: 'العربية',
    languageCode: 'ar',
    methods: { togo: 'Togo balance', wallet: 'Wallet', lahza: 'Card (Lahza)', crypto: 'Digital currency' } as Record<string, string>,
    minutes: '{m} min {s} s',
    cryptoUnder: 'Send part of it with {method}',
    cryptoOver: 'Send more than due with {method}',
    partial: 'Received {received}; {remaining} still due.',
    overpaid: '{overpayment} more than due was received; {merchant} will settle it.',
    payAtProvider: 'Pay with {method}',
    providerTestPage: "Pay on {method}'s test page",
    providerUnavailable: 'The payment provider could not be reached. Nothing was charged; please try again.',
    providerProcessingBody: 'We are confirming your payment with the provider. This page updates by itself.',
    continuePayment: 'Continue the payment',
    latePaid: 'This payment arrived after the link had expired. It has been recorded and {merchant} has been told.',
  },
  ar: {
    dir: 'rtl',
    title: 'الدفع',
    payTo: 'ادفع إلى {merchant}',
    amount: 'المبلغ',
    description: 'مقابل',
    timeLeft: 'الوقت المتبقي',
    chooseMethod: 'اختر طريقة الدفع',
    testMode: 'وضع الاختبار: لا تتحرك أي أموال. استخدم الأزرار لإتمام الدفع أو رفضه.',
    pay: 'ادفع عبر {method}',
    decline: 'ارفض عبر {method}',
    notAvailable: '{method}: غير متاح بعد',
    cancel: 'إلغاء الدفع',
    declined: 'تم رفض الدفع. يمكنك المحاولة مرة أخرى.',
    paidTitle: 'تم استلام الدفعة',
    paidBody: 'استلم {merchant} دفعتك بمبلغ {amount}.',
    reference: 'المرجع',
    expiredTitle: 'انتهت صلاحية رابط الدفع',
    expiredBody: 'اطلب من {merchant} رابطًا جديدًا.',
    cancelledTitle: 'تم إلغاء الدفع',
    cancelledBody: 'لم يتم خصم أي مبلغ.',
    failedTitle: 'لم يكتمل الدفع',
    failedBody: 'لم يتم خصم أي مبلغ. اطلب من {merchant} رابطًا جديدًا.',
    processingTitle: 'الدفع قيد المعالجة',
    processingBody: 'ستعرض هذه الصفحة النتيجة عند اكتمال الدفع.',
    notFoundTitle: 'رابط الدفع غير موجود',
    notFoundBody: 'تحقق من الرابط الذي وصلك، أو اطلب رابطًا جديدًا من المتجر.',
    unavailableTitle: 'الدفع غير متاح حاليًا',
    unavailableBody: 'يرجى المحاولة بعد قليل.',
    language: 'English',
    languageCode: 'en',
    methods: { togo: 'رصيد توغو', wallet: 'المحفظة', lahza: 'بطاقة (لحظة)', crypto: 'عملة رقمية' } as Record<string, string>,
    minutes: '{m} د {s} ث',
    cryptoUnder: 'أرسل جزءًا من المبلغ عبر {method}',
    cryptoOver: 'أرسل أكثر من المستحق عبر {method}',
    partial: 'تم استلام {received}، ويتبقى {remaining}.',
    overpaid: 'تم استلام {overpayment} زيادة عن المستحق، وسيقوم {merchant} بتسويته.',
    payAtProvider: 'ادفع عبر {method}',
    providerTestPage: 'ادفع في صفحة الاختبار لدى {method}',
    providerUnavailable: 'تعذّر الوصول إلى مزوّد الدفع. لم يتم خصم أي مبلغ؛ يرجى المحاولة مرة أخرى.',
    providerProcessingBody: 'نتحقق من دفعتك لدى مزوّد الدفع. تتحدّث هذه الصفحة تلقائيًا.',
    continuePayment: 'متابعة الدفع',
    latePaid: 'وصلت هذه الدفعة بعد انتهاء صلاحية الرابط. تم تسجيلها وإبلاغ {merchant}.',
  },
} as const;

export type Messages = (typeof MESSAGES)[Language];

/** `?lang=` first, then the first language of Accept-Language we speak, else English. */
export function chooseLanguage(query: unknown, acceptLanguage: string | undefined): Language {
  if (query === 'ar' || query === 'en') return query;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((entry) => {
      const [tag, ...params] = entry.trim().toLowerCase().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag ?? '', q: q ? Number(q.slice(2)) : 1 };
    })
    .filter((e) => e.tag && !Number.isNaN(e.q) && e.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const { tag } of ranked) {
    const primary = tag.split('-')[0];
    if (primary === 'ar' || primary === 'en') return primary;
  }
  return 'en';
}

export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => values[key] ?? '');
}
