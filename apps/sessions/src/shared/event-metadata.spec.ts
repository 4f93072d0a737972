import { eventMetadata } from './event-metadata';

describe('eventMetadata', () => {
  const scope = { merchantId: 'acct_1', environment: 'test' as const };

  it('names the command that caused the events (AsyncAPI: "the event or command that caused this one")', () => {
    expect(eventMetadata(scope, 'req_1', 'cmd_1')).toEqual({ merchant_id: 'acct_1', environment: 'test', correlation_id: 'req_1', causation_id: 'cmd_1', command_id: 'cmd_1' });
  });

  it('names none when no command did (a job run)', () => {
    expect(eventMetadata(scope, 'job_1')).toEqual({ merchant_id: 'acct_1', environment: 'test', correlation_id: 'job_1', causation_id: null });
  });
});
