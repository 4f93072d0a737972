import { assertValidMail, InvalidMail, type OutgoingMail } from './outgoing-mail';

const mail: OutgoingMail = { to: 'shop@example.com', subject: 'Confirm your e-mail', text: 'Hello', kind: 'confirm_email' };

describe('an outgoing message', () => {
  it('is accepted with one address, a one-line subject and a text', () => {
    expect(() => assertValidMail(mail)).not.toThrow();
    expect(() => assertValidMail({ ...mail, html: '<p>Hello</p>' })).not.toThrow();
  });

  it.each([
    ['two recipients', { to: 'a@example.com, b@example.com' }],
    ['a display name', { to: 'Shop <shop@example.com>' }],
    ['a header injection', { to: 'shop@example.com\r\nBcc: x@example.com' }],
    ['no domain', { to: 'shop@' }],
    ['an address too long', { to: `${'a'.repeat(250)}@example.com` }],
    ['a subject of two lines', { subject: 'Hi\nBcc: x@example.com' }],
    ['an empty subject', { subject: '  ' }],
    ['a subject too long', { subject: 's'.repeat(201) }],
    ['no text', { text: '' }],
    ['a text too long', { text: 't'.repeat(100_001) }],
    ['an html too long', { html: 'h'.repeat(200_001) }],
    ['a kind that is no name', { kind: 'Confirm Email' }],
  ])('is refused with %s', (_what, change) => {
    expect(() => assertValidMail({ ...mail, ...change })).toThrow(InvalidMail);
  });
});
