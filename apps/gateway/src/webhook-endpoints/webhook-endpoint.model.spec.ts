import { validateEnvelope } from '@payments/events';
import { webhookEndpointEvent } from './webhook-endpoint.events';
import { enable, markDeleted, markDisabledByDispatcher, newEndpoint, resourceOf, rollSecret, snapshotOf, WEBHOOK_ENDPOINT_ID } from './webhook-endpoint.model';

const t0 = new Date('2025-03-01T10:00:00.000Z');
const hours = (n: number) => new Date(t0.getTime() + n * 3_600_000);
const created = () =>
  newEndpoint({ merchantId: 'acct_1', environment: 'test', url: 'https://shop.example/hooks', events: null, secretEncrypted: 'enc-1', now: t0 });

describe('webhook endpoint model', () => {
  it('starts enabled at version 1 with one secret', () => {
    const endpoint = created();
    expect(endpoint.id).toMatch(WEBHOOK_ENDPOINT_ID);
    expect(endpoint).toMatchObject({ status: 'enabled', version: 1, previousSecretEncrypted: null, previousSecretExpiresAt: null });
    expect(resourceOf(endpoint, t0)).toEqual({
      id: endpoint.id,
      object: 'webhook_endpoint',
      url: 'https://shop.example/hooks',
      events: null,
      environment: 'test',
      status: 'enabled',
      disabled_reason: null,
      disabled_at: null,
      previous_secret_expires_at: null,
      created_at: t0.toISOString(),
    });
  });

  it("shows the dispatcher's disabling until the merchant enables the endpoint again", () => {
    const endpoint = created();
    const disabled = markDisabledByDispatcher(endpoint, 1, 'gone', hours(1))!;
    // The dispatcher's decision, not a settings change: same version, nothing to publish.
    expect(disabled).toMatchObject({ status: 'disabled', disabledReason: 'gone', disabledAt: hours(1), version: 1 });
    expect(resourceOf(disabled, hours(1))).toMatchObject({ status: 'disabled', disabled_reason: 'gone', disabled_at: hours(1).toISOString() });
    expect(snapshotOf(disabled).status).toBe('disabled');

    const enabled = enable(disabled, hours(2));
    expect(enabled).toMatchObject({ status: 'enabled', disabledReason: null, disabledAt: null, version: 2 });
    expect(resourceOf(enabled, hours(2))).toMatchObject({ status: 'enabled', disabled_reason: null, disabled_at: null });
  });

  it('ignores a disabling of a version the merchant has changed since, or of an endpoint not enabled', () => {
    const rolled = rollSecret(created(), 'enc-2', 24, t0);
    // The dispatcher acted on version 1; version 2 (enabled) reached it afterwards and lifted its disabling.
    expect(markDisabledByDispatcher(rolled, 1, 'failing', hours(1))).toBeNull();
    expect(markDisabledByDispatcher(rolled, 2, 'failing', hours(1))).toMatchObject({ status: 'disabled', disabledReason: 'failing' });
    expect(markDisabledByDispatcher(markDeleted(rolled, t0), 3, 'gone', hours(1))).toBeNull();
    const disabled = markDisabledByDispatcher(rolled, 2, 'gone', hours(1))!;
    expect(markDisabledByDispatcher(disabled, 2, 'failing', hours(2))).toBeNull();
  });

  it('keeps the rolled secret signing for 24 h by default, less when asked, not at all with 0', () => {
    const endpoint = created();
    const rolled = rollSecret(endpoint, 'enc-2', 24, t0);
    expect(rolled).toMatchObject({ secretEncrypted: 'enc-2', previousSecretEncrypted: 'enc-1', previousSecretExpiresAt: hours(24), version: 2 });
    expect(rollSecret(endpoint, 'enc-2', 3, t0).previousSecretExpiresAt).toEqual(hours(3));
    expect(rollSecret(endpoint, 'enc-2', 0, t0)).toMatchObject({ previousSecretEncrypted: null, previousSecretExpiresAt: null });
  });

  it('signs with at most two secrets: a second roll drops the oldest', () => {
    const twice = rollSecret(rollSecret(created(), 'enc-2', 24, t0), 'enc-3', 24, hours(1));
    expect(twice).toMatchObject({ secretEncrypted: 'enc-3', previousSecretEncrypted: 'enc-2', previousSecretExpiresAt: hours(25), version: 3 });
  });

  it('shows the previous secret expiry only while it still signs', () => {
    const rolled = rollSecret(created(), 'enc-2', 2, t0);
    expect(resourceOf(rolled, hours(1)).previous_secret_expires_at).toBe(hours(2).toISOString());
    expect(resourceOf(rolled, hours(2)).previous_secret_expires_at).toBeNull();
  });

  it('has no resource once deleted, and travels as disabled to the dispatcher', () => {
    const deleted = markDeleted(created(), hours(1));
    expect(() => resourceOf(deleted)).toThrow();
    expect(snapshotOf(deleted)).toMatchObject({ status: 'disabled', updated_at: hours(1).toISOString() });
    expect(enable({ ...created(), status: 'disabled' }, hours(1))).toMatchObject({ status: 'enabled', version: 2 });
  });

  it('builds events that pass the registered schema: snapshot data, sequence = version, encrypted secrets only', () => {
    const rolled = rollSecret(created(), 'enc-2', 24, hours(1));
    const event = webhookEndpointEvent('webhook_endpoint.updated', rolled, 'req_1');
    expect(() => validateEnvelope(event)).not.toThrow();
    expect(event).toMatchObject({
      type: 'webhook_endpoint.updated',
      aggregate_type: 'webhook_endpoint',
      aggregate_id: rolled.id,
      sequence: 2,
      merchant_id: 'acct_1',
      environment: 'test',
      occurred_at: hours(1).toISOString(),
      correlation_id: 'req_1',
      data: {
        id: rolled.id,
        merchant_id: 'acct_1',
        environment: 'test',
        url: 'https://shop.example/hooks',
        events: null,
        status: 'enabled',
        secret_encrypted: 'enc-2',
        previous_secret_encrypted: 'enc-1',
        previous_secret_expires_at: hours(25).toISOString(),
        created_at: t0.toISOString(),
        updated_at: hours(1).toISOString(),
      },
    });
    expect(() => validateEnvelope({ ...event, data: { ...event.data, status: 'deleted' } })).toThrow(/status/);
  });
});
