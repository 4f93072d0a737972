import pino from 'pino';
import { Writable } from 'node:stream';
import { logOptions, REDACT_PATHS, requestLogLine } from './log-options';

// No secret reaches a log line: credentials in headers and secret-looking fields are censored.
describe('log redaction', () => {
  function capture(): { logger: pino.Logger; lines: () => string } {
    let out = '';
    const stream = new Writable({
      write(chunk, _enc, done) {
        out += chunk.toString();
        done();
      },
    });
    const options = logOptions('test', 'info');
    const logger = pino({ level: 'info', redact: options.redact as pino.LoggerOptions['redact'] }, stream);
    return { logger, lines: () => out };
  }

  it('writes an error with its type and message, never its stack trace or the SQL of a database error', () => {
    let out = '';
    const stream = new Writable({
      write(chunk, _enc, done) {
        out += chunk.toString();
        done();
      },
    });
    const logger = pino(logOptions('test', 'info'), stream);
    const error = Object.assign(new Error('duplicate key', { cause: new Error('inner') }), {
      query: 'INSERT INTO sessions.events VALUES ($1)',
      parameters: ['ada@example.com'],
      code: '23505',
    });
    logger.error({ err: error }, 'write failed');
    logger.error({ err: { message: 'from a framework', stack: 'Error: x\n    at handler (/app/dist/main.js:1:1)' } }, 'framework error');
    const [first, second] = out.trim().split('\n').map((line) => JSON.parse(line));
    expect(first.err).toMatchObject({ type: 'Error', message: 'duplicate key: inner', code: '23505' });
    expect(second.err).toEqual({ message: 'from a framework' });
    for (const leaked of ['stack', '    at ', 'INSERT INTO', 'ada@example.com']) expect(out).not.toContain(leaked);
  });

  it('censors authorization headers, cookies and secret fields', () => {
    const { logger, lines } = capture();
    logger.info(
      {
        req: { headers: { authorization: 'Bearer pay_live_abc.supersecret', cookie: 'session=xyz' } },
        endpoint: { secret: 'whsec_topsecret' },
        merchant: { test_key: 'pay_test_k.s3cr3t', live_key: 'pay_live_k.s3cr3t', password: 'hunter2' },
      },
      'something happened',
    );
    const text = lines();
    for (const leaked of ['supersecret', 'session=xyz', 'whsec_topsecret', 's3cr3t', 'hunter2']) expect(text).not.toContain(leaked);
    expect(text).toContain('[redacted]');
    expect(text).toContain('something happened');
  });

  it('covers the headers and fields the services log', () => {
    expect(REDACT_PATHS).toEqual(expect.arrayContaining(['req.headers.authorization', 'req.headers.cookie', '*.secret', '*.password']));
  });
});

// One line per finished request, in the shape pino-http wrote: request id, method, url, status, time, correlation.
describe('request log line', () => {
  const request = (headers: Record<string, string> = {}) => ({ id: 'req_1', method: 'POST', url: '/api/v1/payment-intents', headers });

  it('names the request, its status and its time, never its headers', () => {
    const line = requestLogLine(request({ authorization: 'Bearer pay_test_k.secret' }), 201, 12.6);
    expect(line).toEqual({ req: { id: 'req_1', method: 'POST', url: '/api/v1/payment-intents' }, res: { statusCode: 201 }, responseTime: 13, correlation_id: 'req_1' });
  });

  it("never writes the value of a query's token, code, key or e-mail: a mailed link's token is a password while it is valid", () => {
    const line = (url: string) => requestLogLine({ ...request({}), url }, 200, 1).req.url;
    expect(line('/dashboard/invitations?token=abc123secret')).toBe('/dashboard/invitations?token=[redacted]');
    expect(line('/dashboard/reset-password?lang=ar&token=t0k&x=1')).toBe('/dashboard/reset-password?lang=ar&token=[redacted]&x=1');
    expect(line('/wallet/test?wallet_code=123456&Email=a%40b.c&api%5Fkey=k')).toBe('/wallet/test?wallet_code=[redacted]&Email=[redacted]&api%5Fkey=[redacted]');
    expect(line('/api/v1/payment-intents?limit=10&starting_after=pi_test_x')).toBe('/api/v1/payment-intents?limit=10&starting_after=pi_test_x');
    expect(line('/health/live')).toBe('/health/live');
    expect(line('/x?token')).toBe('/x?token');
    expect(line('/x?%E0%A4%A=1')).toBe('/x?%E0%A4%A=1');
  });

  it("carries the caller's Correlation-Id when it is safe, else the request id", () => {
    expect(requestLogLine(request({ 'correlation-id': 'order-42' }), 200, 1).correlation_id).toBe('order-42');
    expect(requestLogLine(request({ 'correlation-id': 'bad id\n' }), 200, 1).correlation_id).toBe('req_1');
  });
});
