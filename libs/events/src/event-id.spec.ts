import { EVENT_ID_PATTERN, newEventId } from './event-id';
import { deadLetterTopic, STREAMS, topicName } from './topics';

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
});
