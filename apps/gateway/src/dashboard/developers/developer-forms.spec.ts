import { dateTimeLocal, endpointBody, field, mayManageDevelopers, noticeOf, replayBody, rollSecretBody, shownTime, utcDateTime } from './developer-forms';

describe('developer page forms', () => {
  it('lets owners and developers act, and viewers only look', () => {
    expect(mayManageDevelopers('owner')).toBe(true);
    expect(mayManageDevelopers('developer')).toBe(true);
    expect(mayManageDevelopers('viewer')).toBe(false);
  });

  it('reads text fields only, cut to their length', () => {
    expect(field({ name: 'abc' }, 'name', 2)).toBe('ab');
    expect(field({ name: ['a', 'b'] }, 'name')).toBe('');
    expect(field(undefined, 'name')).toBe('');
  });

  it('turns the endpoint form into the API body: every type, or the checked ones as sent', () => {
    expect(endpointBody({ url: ' https://shop.example/hooks ', scope: 'all', 'event:refund.completed': 'on' })).toEqual({
      url: 'https://shop.example/hooks',
      events: null,
    });
    expect(endpointBody({ url: 'https://a.example', scope: 'selected', 'event:refund.completed': 'on', 'event:made.up': 'on', other: 'x' })).toEqual({
      url: 'https://a.example',
      events: ['refund.completed', 'made.up'],
    });
    // "Only these" with none checked is an empty list, which the API refuses, never "every type".
    expect(endpointBody({ url: 'https://a.example', scope: 'selected' }).events).toEqual([]);
  });

  it('sends the secret overlap as a number, and anything else as sent for the API to refuse', () => {
    expect(rollSecretBody({ hours: '24' })).toEqual({ expires_in_hours: 24 });
    expect(rollSecretBody({ hours: '0' })).toEqual({ expires_in_hours: 0 });
    expect(rollSecretBody({ hours: '1.5' })).toEqual({ expires_in_hours: '1.5' });
    expect(rollSecretBody({})).toEqual({});
  });

  it('reads the replay range as UTC', () => {
    expect(utcDateTime('2025-06-01T10:30')).toBe('2025-06-01T10:30:00Z');
    expect(utcDateTime('2025-06-01T10:30:15')).toBe('2025-06-01T10:30:15Z');
    expect(utcDateTime('yesterday')).toBe('yesterday');
    expect(replayBody({ from: '2025-06-01T10:00', to: '2025-06-01T11:00' })).toEqual({ from: '2025-06-01T10:00:00Z', to: '2025-06-01T11:00:00Z' });
    expect(dateTimeLocal(new Date('2025-06-01T10:30:45.123Z'))).toBe('2025-06-01T10:30');
  });

  it('knows only its own notices, and shows times in UTC', () => {
    expect(noticeOf('key_revoked')).toBe('key_revoked');
    expect(noticeOf('<script>')).toBeNull();
    expect(shownTime('2025-06-01T10:30:45.123Z')).toBe('2025-06-01 10:30:45 UTC');
    expect(shownTime(null)).toBe('');
  });
});
