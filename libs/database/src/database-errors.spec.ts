import { isDatabaseTimeout, postgresErrorCode } from './database-errors';

describe('database errors', () => {
  it('reads the SQLSTATE from pg errors and from TypeORM errors around them', () => {
    expect(postgresErrorCode({ code: '23505' })).toBe('23505');
    expect(postgresErrorCode({ driverError: { code: '40P01' }, code: undefined })).toBe('40P01');
    expect(postgresErrorCode(new Error('no code'))).toBeUndefined();
    expect(postgresErrorCode(undefined)).toBeUndefined();
    expect(postgresErrorCode({ code: 'ECONNREFUSED', errno: -111 })).toBe('ECONNREFUSED');
  });

  it('counts lock_timeout and statement_timeout as timeouts, nothing else', () => {
    expect(isDatabaseTimeout({ driverError: { code: '55P03' } })).toBe(true);
    expect(isDatabaseTimeout({ code: '57014' })).toBe(true);
    for (const code of ['23505', '40001', '40P01', '42P01', 'ECONNREFUSED']) expect(isDatabaseTimeout({ code })).toBe(false);
    expect(isDatabaseTimeout(new Error('canceling statement due to lock timeout'))).toBe(false);
  });
});
