import { uniqueName } from '@payments/testing';
import { intentEvent, newEndpoint } from './support/fixtures';
import { createHarness, type Harness, type WebhooksCommands } from './support/harness';
import { startReceiver, type TestReceiver } from './support/receiver';

// A retry goes out when it is due (DESIGN §5: the first after 5 s ±10 %), not at the next poll: the poll here is
// far longer than the retry delay, so only the instance's own wake-up for the retry can be on time.
describe('webhook retry timing', () => {
  let h: Harness;
  let commands: WebhooksCommands;
  let receiver: TestReceiver | undefined;

  beforeAll(async () => {
    h = await createHarness('wd_retry_timing');
    // The longest poll the settings allow (2 s): without the wake-up, a retry due after 0.6 s would go out >1.3 s late.
    await h.startDispatcher({ WEBHOOK_POLL_INTERVAL_MS: '2000', WEBHOOK_RETRY_SCHEDULE_MS: '600,600' });
    commands = await h.commands();
  }, 120_000);

  afterAll(async () => {
    await receiver?.close();
    await h?.close();
  });

  it('attempts a failed delivery again at its next_attempt_at, not a poll interval later', async () => {
    const merchant = uniqueName('acct');
    const placeholder = newEndpoint(merchant, 'test', 'http://127.0.0.1:9/none', null);
    receiver = await startReceiver({ secret: placeholder.secret });
    const endpoint = { ...placeholder, snapshot: { ...placeholder.snapshot, url: receiver.url } };
    await h.configure(endpoint);
    receiver.failNext(2);
    const event = intentEvent(merchant, 'test');
    await h.publish('sessions', [event]);
    const [delivery] = await h.settled(event.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 3 });

    const list = await commands.list({ merchant_id: merchant, environment: 'test', endpoint_id: endpoint.snapshot.id });
    const attempts = list.data[0]!.attempts;
    expect(attempts.map((a) => a.status_code)).toEqual([500, 500, 200]);
    for (const [i, attempt] of attempts.slice(1).entries()) {
      const scheduled = Date.parse(attempts[i]!.next_attempt_at!);
      const sentAt = Date.parse(attempt.attempted_at);
      // Within 0.6 s ±10 % of the failure, and not before it was due (the clocks are the same machine's).
      expect(scheduled - Date.parse(attempts[i]!.attempted_at)).toBeGreaterThanOrEqual(540);
      expect(sentAt - scheduled).toBeGreaterThanOrEqual(-20);
      expect(sentAt - scheduled).toBeLessThan(500);
    }
  });
});
