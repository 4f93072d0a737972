import { chooseDashboardLanguage, defineMessages } from './i18n';
import { frameText } from './frame-messages';

describe('dashboard language', () => {
  it('takes ?lang= first, then the cookie, then Accept-Language, then English', () => {
    expect(chooseDashboardLanguage('ar', 'en', 'en')).toBe('ar');
    expect(chooseDashboardLanguage(undefined, 'ar', 'en')).toBe('ar');
    expect(chooseDashboardLanguage('fr', undefined, 'fr-FR, ar;q=0.8')).toBe('ar');
    expect(chooseDashboardLanguage(undefined, undefined, 'ar;q=0, de')).toBe('en');
  });

  it('fills places with plain text and leaves unknown places visible', () => {
    const t = defineMessages({ en: { hi: 'Hi {name} {x}' }, ar: { hi: 'مرحباً {name}' } });
    expect(t('en', 'hi', { name: '<b>' })).toBe('Hi <b> {x}');
    expect(t('ar', 'hi', { name: 'سارة' })).toBe('مرحباً سارة');
  });

  it('has every frame message in both languages, right to left in Arabic', () => {
    expect(Object.keys(frameText.messages.ar).sort()).toEqual(Object.keys(frameText.messages.en).sort());
    expect(frameText('ar', 'dir')).toBe('rtl');
  });
});
