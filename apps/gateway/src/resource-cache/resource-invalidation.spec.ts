import { resourcesChangedBy } from './resource-invalidation';

const event = (over: Record<string, unknown>) =>
  Buffer.from(
    JSON.stringify({
      id: 'evt_1',
      type: 'payment_intent.succeeded',
      aggregate_type: 'payment_intent',
      aggregate_id: 'pi_test_a',
      merchant_id: 'mer_1',
      environment: 'test',
      ...over,
    }),
  );

describe('resourcesChangedBy', () => {
  it('names each changed intent or invoice once, with its merchant and environment', () => {
    expect(
      resourcesChangedBy([
        event({}),
        event({ id: 'evt_2', type: 'payment_intent.succeeded' }),
        event({ type: 'invoice.paid', aggregate_type: 'invoice', aggregate_id: 'inv_live_b', environment: 'live' }),
      ]),
    ).toEqual([
      { merchantId: 'mer_1', environment: 'test', id: 'pi_test_a' },
      { merchantId: 'mer_1', environment: 'live', id: 'inv_live_b' },
    ]);
  });

  it('skips creations, other aggregates and values that name no resource', () => {
    expect(
      resourcesChangedBy([
        event({ type: 'payment_intent.created' }),
        event({ type: 'refund.created', aggregate_type: 'refund' }),
        event({ merchant_id: undefined }),
        Buffer.from('not json'),
        null,
      ]),
    ).toEqual([]);
  });

  it('invalidates an event it cannot fully read as long as it names the resource (dropping is always safe)', () => {
    expect(resourcesChangedBy([event({ type: 42, data: 'garbage' })])).toEqual([{ merchantId: 'mer_1', environment: 'test', id: 'pi_test_a' }]);
  });
});
