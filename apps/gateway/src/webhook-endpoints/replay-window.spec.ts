import { ApiError } from '@payments/platform';
import { replayWindow } from './replay-window';

const now = new Date('2025-03-31T12:00:00.000Z');

function problem(from: string, to: string): { param?: string; code: string } {
  try {
    replayWindow(from, to, now);
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, param: error.param };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('replayWindow', () => {
  it('normalizes a valid range to UTC', () => {
    expect(replayWindow('2025-03-30T14:00:00+02:00', '2025-03-31T11:00:00Z', now)).toEqual({
      from: '2025-03-30T12:00:00.000Z',
      to: '2025-03-31T11:00:00.000Z',
    });
  });

  it('accepts exactly 30 days back and an end after now', () => {
    expect(replayWindow('2025-03-01T12:00:00Z', '2025-04-01T00:00:00Z', now).from).toBe('2025-03-01T12:00:00.000Z');
  });

  it('refuses a reversed or empty range, a start older than 30 days or in the future, and impossible dates', () => {
    expect(problem('2025-03-31T10:00:00Z', '2025-03-31T09:00:00Z')).toEqual({ code: 'invalid_request', param: 'from' });
    expect(problem('2025-03-31T10:00:00Z', '2025-03-31T10:00:00Z')).toEqual({ code: 'invalid_request', param: 'from' });
    expect(problem('2025-03-01T11:59:59Z', '2025-03-02T00:00:00Z')).toEqual({ code: 'invalid_request', param: 'from' });
    expect(problem('2025-04-01T00:00:00Z', '2025-04-02T00:00:00Z')).toEqual({ code: 'invalid_request', param: 'from' });
    expect(problem('2025-02-30T25:00:00Z', '2025-03-02T00:00:00Z')).toMatchObject({ code: 'invalid_request' });
  });
});
