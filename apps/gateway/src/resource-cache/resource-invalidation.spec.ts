import { resourcesChangedBy } from './resource-invalidation';

const event = (over: Record<string, unknown>, key = 'pi_test_a') => ({
  key: Buffer.from(key),
  value: Buffer.from(
    JSON.stringify({
      id: 'evt_1',
      type: 'payment_intent.succeeded',
      aggregate_type: 'payment_intent',
      aggregate_id: 'pi_test_a',
      merchant_id: 'mer_1',
      environment: 'test',
      ...over,
    }),
  ),
});

describe('resourcesChangedBy', () => {
  it('names each changed intent or invoice once', () => {
    expect(
      resourcesChangedBy([
        event({}),
        event({ id: 'evt_2', type: 'payment_intent.succeeded' }),
        event({ type: 'invoice.paid', aggregate_type: 'invoice', aggregate_id: 'inv_live_b', environment: 'live' }, 'inv_live_b'),
      ]),
    ).toEqual({ changed: [{ id: 'pi_test_a' }, { id: 'inv_live_b' }], malformed: [] });
  });

  it('skips creations and other aggregates', () => {
    expect(resourcesChangedBy([event({ type: 'payment_intent.created' }), event({ type: 'refund.created', aggregate_type: 'refund' }, 're_1')])).toEqual({
      changed: [],
      malformed: [],
    });
  });

  it('invalidates an event it cannot fully read as long as it names the resource (dropping is always safe)', () => {
    expect(resourcesChangedBy([event({ type: 42, data: 'garbage' })]).changed).toEqual([{ id: 'pi_test_a' }]);
  });

  // A malformed event used to be skipped silently (its parse error caught and the loop moved on), leaving a stale
  // copy cached for up to an hour: it is now reported for dead-lettering and its resource (the message key)
  // dropped all the same.
  it('swallowed-error class: an unreadable event is reported as malformed and the resource its key names is dropped', () => {
    const notJson = { key: Buffer.from('pi_test_z'), value: Buffer.from('not json') };
    const noAggregate = { key: Buffer.from('inv_test_y'), value: Buffer.from('{"type":"invoice.paid"}') };
    const empty = { key: null, value: null };
    const result = resourcesChangedBy([notJson, noAggregate, empty]);
    expect(result.malformed).toEqual([notJson, noAggregate, empty]);
    expect(result.changed).toEqual([{ id: 'pi_test_z' }, { id: 'inv_test_y' }]);
  });
});
