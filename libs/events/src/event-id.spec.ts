import { EVENT_ID_PATTERN, newEventId } from './event-id';
import { deadLetterTopic, STREAMS, topicCopies, topicName } from './topics';

describe('newEventId', () => {
  it('is evt_ + 24 base62 characters and does not repeat', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => newEventId()));
    expect(ids.size).toBe(2000);
    for (const id of ids) expect(id).toMatch(EVENT_ID_PATTERN);
  });

  it('uses the whole alphabet', () => {
    const seen = new Set(Array.from({ length: 400 }, () => newEventId().slice(4)).join(''));
    expect(seen.size).toBe(62);
  });
});

describe('topic names', () => {
  it('are versioned per namespace and stream', () => {
    expect(topicName('payments', STREAMS.sessions)).toBe('payments.sessions.events.v1');
    expect(topicName('payments', STREAMS.gateway)).toBe('payments.gateway.events.v1');
  });

  it('have a dead-letter topic beside them', () => {
    expect(deadLetterTopic('payments.refunds.events.v1')).toBe('payments.refunds.events.v1.dlq');
  });

  it('copy paid sessions events, and only those, onto the payments topic', () => {
    const copies = topicCopies('acme');
    expect(copies('acme.sessions.events.v1', 'payment_intent.succeeded')).toEqual(['acme.sessions.payments.v1']);
    expect(copies('acme.sessions.events.v1', 'invoice.paid')).toEqual(['acme.sessions.payments.v1']);
    expect(copies('acme.sessions.events.v1', 'payment_intent.created')).toEqual([]);
    expect(copies('acme.sessions.events.v1', undefined)).toEqual([]);
    // Another namespace's topic, or another stream's event of the same name, is not copied.
    expect(copies('payments.sessions.events.v1', 'payment_intent.succeeded')).toEqual([]);
    expect(copies('acme.refunds.events.v1', 'payment_intent.succeeded')).toEqual([]);
  });
});
