import { randomUUID } from 'node:crypto';
import { execSync } from 'node:child_process';
import { startStack } from '@payments/testing';
async function main() {
  const stack = await startStack(['sessions', 'gateway'], { LOG_LEVEL: 'info' });
  const m = await stack.createMerchant({ verified: true });
  const body = { amount: '74.00', currency: 'USD', external_ref: 'p', description: 'p' };
  for (let i = 0; i < 20; i++) await stack.call('POST', '/api/v1/payment-intents', { key: m.test_key, body, headers: { 'idempotency-key': randomUUID() } });
  const pid = stack.services.gateway!.process.pid!;
  console.log('gateway pid', pid);
  const strace = require('node:child_process').spawn('strace', ['-f', '-tt', '-p', String(pid), '-e', 'trace=write,writev,read,epoll_pwait', '-o', '/tmp/probe/gw.txt']);
  await new Promise((r) => setTimeout(r, 1500));
  const t0 = Date.now();
  await stack.call('POST', '/api/v1/payment-intents', { key: m.test_key, body, headers: { 'idempotency-key': randomUUID() } });
  console.log('create took', Date.now() - t0, 'ms');
  await new Promise((r) => setTimeout(r, 300));
  strace.kill('SIGINT');
  await new Promise((r) => setTimeout(r, 500));
  console.log(execSync('ls -la /proc/' + pid + '/fd | tail -n +2 | awk \'{print $9, $11}\'').toString());
  await stack.stop();
}
main().catch((e) => { console.error(e); process.exit(1); });
