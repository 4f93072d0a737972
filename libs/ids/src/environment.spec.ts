import { isEnvironment } from './environment';

describe('isEnvironment', () => {
  it('knows live and test only', () => {
    expect(isEnvironment('live')).toBe(true);
    expect(isEnvironment('test')).toBe(true);
    expect(isEnvironment('prod')).toBe(false);
    expect(isEnvironment(undefined)).toBe(false);
  });
});
