import { chooseLanguage, fill } from './messages';

describe('chooseLanguage', () => {
  it('takes ?lang= first, then the best Accept-Language we speak, else English', () => {
    expect(chooseLanguage('ar', 'en-US')).toBe('ar');
    expect(chooseLanguage(undefined, 'ar-EG,ar;q=0.9,en;q=0.8')).toBe('ar');
    expect(chooseLanguage(undefined, 'fr-FR,fr;q=0.9,ar;q=0.5,en;q=0.7')).toBe('en');
    expect(chooseLanguage(undefined, 'fr, de')).toBe('en');
    expect(chooseLanguage('xx', undefined)).toBe('en');
  });

  it('fills placeholders', () => {
    expect(fill('Pay {merchant}', { merchant: 'Shop' })).toBe('Pay Shop');
  });
});
