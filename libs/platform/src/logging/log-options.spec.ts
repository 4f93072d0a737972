import pino from 'pino';
import { Writable } from 'node:stream';
import { logOptions, REDACT_PATHS } from './log-options';

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
