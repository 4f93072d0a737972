import type { DeliveryList } from '@payments/contracts';
import type { ApiKeyEntity } from '../../merchants/api-key.entity';
import type { WebhookEndpointResource } from '../../webhook-endpoints/webhook-endpoint.model';
import type { Role, SignedInRequest } from '../session/dashboard-auth';
import { endpointPage, overviewPage } from './developers-pages';

function pageOf(role: Role, environment: 'live' | 'test' = 'test', verificationStatus = 'verified', lang: 'en' | 'ar' = 'en'): SignedInRequest {
  return {
    lang,
    nonce: 'n0nce',
    csrf: 'tok',
    path: `/dashboard/${environment}/developers`,
    environment,
    user: { id: 'u', email: 'a@b.example', role, merchantId: 'acct_1', sessionEpoch: 0, merchant: { id: 'acct_1', name: 'Shop', verificationStatus, rejectionReason: null } },
  } as unknown as SignedInRequest;
}

const key = (over: Partial<ApiKeyEntity>): ApiKeyEntity =>
  ({ keyId: 'K1', merchantId: 'acct_1', environment: 'test', secretHash: 'h', name: 'Server', createdAt: new Date('2025-01-01T00:00:00Z'), lastUsedAt: null, revokedAt: null, expiresAt: null, ...over }) as ApiKeyEntity;

const endpoint: WebhookEndpointResource = {
  id: 'we_000000000000000000000001',
  object: 'webhook_endpoint',
  url: 'https://shop.example/hooks?a=<b>',
  events: null,
  environment: 'test',
  status: 'disabled',
  disabled_reason: 'failing',
  disabled_at: '2025-01-02T00:00:00Z',
  previous_secret_expires_at: null,
  created_at: '2025-01-01T00:00:00Z',
};

const deliveries: DeliveryList = {
  object: 'list',
  has_more: true,
  data: [
    {
      id: 'wd_1',
      object: 'webhook_delivery',
      endpoint_id: endpoint.id,
      event_id: 'evt_1',
      event_type: 'refund.completed',
      status: 'failed',
      attempt_count: 1,
      next_attempt_at: null,
      created_at: '2025-01-01T00:00:00Z',
      attempts: [{ attempted_at: '2025-01-01T00:00:01Z', status_code: 500, latency_ms: 42, response_excerpt: '<oops>', error: null, next_attempt_at: null }],
    },
  ],
};

describe('developer page', () => {
  it('gives an owner the key and endpoint forms, each with its CSRF token', () => {
    const out = overviewPage(pageOf('owner'), [key({}), key({ keyId: 'K2', revokedAt: new Date() })], [endpoint]).value;
    expect(out).toContain('data-form="create-key"');
    expect(out).toContain('data-form="add-endpoint"');
    expect(out).toContain('pay_test_K1');
    expect(out).toContain('/dashboard/test/developers/keys/K1/roll');
    expect(out).not.toContain('/keys/K2/roll'); // a revoked key has nothing left to do
    expect(out.match(/name="_csrf" value="tok"/g)).toHaveLength(2);
    expect(out).toContain('https://shop.example/hooks?a=&lt;b&gt;');
  });

  it('gives a viewer no form and no action link', () => {
    const out = overviewPage(pageOf('viewer'), [key({})], [endpoint]).value;
    expect(out).not.toContain('<form');
    expect(out).not.toContain('/revoke');
    expect(out).toContain('data-view-only');
    const detail = endpointPage(pageOf('viewer'), { endpoint, deliveries, replay: { from: '', to: '' } }).value;
    expect(detail).not.toContain('<form');
    expect(detail).not.toContain('/delete');
  });

  it('shows why instead of the live key form to an unverified merchant', () => {
    const out = overviewPage(pageOf('owner', 'live', 'pending'), [], []).value;
    expect(out).toContain('data-live-locked');
    expect(out).not.toContain('data-form="create-key"');
  });

  it('shows an endpoint with its deliveries, attempts, paging and the actions of a disabled one', () => {
    const out = endpointPage(pageOf('developer'), { endpoint, deliveries, replay: { from: '2025-01-01T00:00', to: '2025-01-01T01:00' } }).value;
    expect(out).toContain('data-form="enable"');
    expect(out).toContain('data-form="resend"');
    expect(out).toContain('/deliveries/wd_1/resend');
    expect(out).toContain('42 ms');
    expect(out).toContain('&lt;oops&gt;');
    expect(out).toContain('?starting_after=wd_1');
    expect(out).toContain('deliveries failed for 5 days');
  });

  it('speaks Arabic', () => {
    expect(overviewPage(pageOf('owner', 'test', 'verified', 'ar'), [], []).value).toContain('مفاتيح الواجهة البرمجية');
  });
});
