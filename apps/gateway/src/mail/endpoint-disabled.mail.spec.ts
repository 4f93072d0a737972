import { endpointDisabledMail } from './endpoint-disabled.mail';
import { assertValidMail } from './outgoing-mail';

describe('the endpoint-disabled notice', () => {
  const endpoint = { id: 'we_abc', url: 'https://shop.example.com/hooks', environment: 'live' as const, reason: 'gone' as const, disabledAt: new Date('2026-01-02T03:04:05Z') };

  it('says which endpoint, in which mode, why and when, and links to its page', () => {
    const mail = endpointDisabledMail('owner@example.com', endpoint, 'https://pay.example.com/');
    expect(() => assertValidMail(mail)).not.toThrow();
    expect(mail).toMatchObject({ kind: 'endpoint_disabled', to: 'owner@example.com', subject: 'Webhook endpoint disabled (live mode)' });
    expect(mail.text).toContain('https://shop.example.com/hooks');
    expect(mail.text).toContain('410 Gone');
    expect(mail.text).toContain('2026-01-02T03:04:05.000Z');
    expect(mail.text).toContain('https://pay.example.com/dashboard/live/developers/webhooks/we_abc');
  });

  it('tells a failing endpoint from a gone one', () => {
    const mail = endpointDisabledMail('owner@example.com', { ...endpoint, environment: 'test', reason: 'failing' }, 'http://localhost:3000');
    expect(mail.subject).toBe('Webhook endpoint disabled (test mode)');
    expect(mail.text).toContain('kept failing');
    expect(mail.text).toContain('http://localhost:3000/dashboard/test/developers/webhooks/we_abc');
  });
});
