import { AccountError } from '../../accounts/account.error';
import type { Invitation, TeamMember } from '../../accounts/accounts.service';
import type { Role, SignedInRequest } from '../session/dashboard-auth';
import { teamText } from './team-messages';
import { teamNoticeOf, teamPage, teamRefusal } from './team-pages';

function pageOf(role: Role, lang: 'en' | 'ar' = 'en'): SignedInRequest {
  return {
    lang,
    nonce: 'n0nce',
    csrf: 'tok',
    path: '/dashboard/test/team',
    environment: 'test',
    user: { id: 'usr_owner', email: 'owner@shop.example', role, merchantId: 'acct_1', sessionEpoch: 0, merchant: { id: 'acct_1', name: 'Shop', verificationStatus: 'verified', rejectionReason: null } },
  } as unknown as SignedInRequest;
}

const member = (over: Partial<TeamMember>): TeamMember => ({
  id: 'usr_owner',
  email: 'owner@shop.example',
  role: 'owner',
  emailConfirmed: true,
  totpEnabled: false,
  locked: false,
  createdAt: new Date('2025-01-01T00:00:00Z'),
  lastLoginAt: null,
  ...over,
});
const users = [member({}), member({ id: 'usr_dev', email: '<dev>@shop.example', role: 'developer', totpEnabled: true, lastLoginAt: new Date('2025-02-01T10:00:00Z') })];
const invitations: Invitation[] = [{ email: 'new@shop.example', role: 'viewer', invitedBy: 'usr_owner', createdAt: new Date('2025-03-01T00:00:00Z'), expiresAt: new Date('2025-03-08T00:00:00Z') }];

describe('team page', () => {
  it("gives an owner the forms (each with the CSRF token) and escapes the users' addresses", () => {
    const out = teamPage(pageOf('owner'), users, invitations).value;
    for (const form of ['invite', 'change-role', 'cancel-invitation']) expect(out).toContain(`data-form="${form}"`);
    expect(out).toContain('href="/dashboard/test/team/users/usr_dev/remove"');
    expect(out.match(/<form /g)!.length).toBe(out.match(/name="_csrf" value="tok"/g)!.length);
    expect(out).toContain('&lt;dev&gt;@shop.example');
    expect(out).not.toContain('<dev>');
    expect(out).toContain('2025-02-01 10:00:00 UTC');
  });

  it('shows developers and viewers the same lists without any form or remove link', () => {
    for (const role of ['developer', 'viewer'] as const) {
      const out = teamPage(pageOf(role), users, invitations).value;
      expect(out).not.toContain('<form');
      expect(out).not.toContain('/remove');
      expect(out).toContain('data-invitation="new@shop.example"');
      expect(out).toContain('data-view-only');
    }
  });

  it("says the domain's refusals in the page's language; not found and forbidden are not messages", () => {
    expect(teamRefusal('en', new AccountError('last_owner', 'x'))).toBe(teamText('en', 'errorLastOwner'));
    expect(teamRefusal('ar', new AccountError('email_taken', 'x'))).toBe(teamText('ar', 'errorEmailTaken'));
    expect(teamRefusal('en', new AccountError('not_found', 'x'))).toBeNull();
    expect(teamRefusal('en', new Error('boom'))).toBeNull();
    const out = teamPage(pageOf('owner', 'ar'), users, [], { error: { form: 'users', message: teamText('ar', 'errorLastOwner') } }).value;
    expect(out).toContain('role="alert"');
    expect(out).toContain(teamText('ar', 'errorLastOwner'));
  });

  it('takes only its own notices from the query', () => {
    expect(teamNoticeOf('invited')).toBe('invited');
    expect(teamNoticeOf('<script>')).toBeNull();
    expect(teamNoticeOf(['invited'])).toBeNull();
  });
});
