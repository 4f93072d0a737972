import { linksIn, renderMail, renderMailList } from './dev-mail-page';
import type { StoredMail } from './mail-outbox.repository';

const mail: StoredMail = {
  id: 'mail_000000000000000000000001',
  kind: 'confirm_email',
  to: 'shop@example.com',
  subject: 'Confirm <b>your</b> e-mail',
  text: 'Open http://localhost:3000/confirm?token=a&b=1. Or <script>alert(1)</script> javascript:alert(1)\n(see https://example.com/help)',
  html: null,
  createdAt: new Date('2026-01-01T00:00:00Z'),
  attempts: 0,
  nextAttemptAt: new Date('2026-01-01T00:00:00Z'),
  lastError: null,
  sentAt: null,
  givenUpAt: null,
};

describe('the development mail page', () => {
  it('shows a message\'s text escaped, with its http(s) links clickable and nothing else', () => {
    const page = renderMail(mail, 'n0nce');
    expect(page).toContain('<a href="http://localhost:3000/confirm?token=a&amp;b=1">http://localhost:3000/confirm?token=a&amp;b=1</a>.');
    expect(page).toContain('(see <a href="https://example.com/help">https://example.com/help</a>)');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).not.toContain('<script');
    expect(page).not.toContain('href="javascript');
    expect(page).toContain('Confirm &lt;b&gt;your&lt;/b&gt; e-mail');
    expect(page).toContain('<style nonce="n0nce">');
    expect(page).toContain('name="viewport"');
  });

  it('lists messages newest first as given, each linking to its page', () => {
    const page = renderMailList([mail], 'n0nce');
    expect(page).toContain(`<a href="/dev/mail/${mail.id}">Confirm &lt;b&gt;your&lt;/b&gt; e-mail</a>`);
    expect(renderMailList([], 'n0nce')).toContain('No messages yet.');
  });

  it('finds the links of a text for the JSON form', () => {
    expect(linksIn(mail.text)).toEqual(['http://localhost:3000/confirm?token=a&b=1', 'https://example.com/help']);
  });
});
