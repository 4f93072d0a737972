import { generate } from 'otplib';
import { TotpSecrets } from './totp';

describe('TotpSecrets', () => {
  const secrets = new TotpSecrets(Buffer.alloc(32, 7), 'Payments dashboard');
  const now = new Date('2026-11-27T10:00:10Z');
  const epoch = Math.floor(now.getTime() / 1000);

  it('stores the secret encrypted (only this key opens it) and gives an otpauth URI', async () => {
    const created = secrets.create('owner@example.com');
    expect(created.uri).toMatch(/^otpauth:\/\/totp\/.*secret=/);
    expect(created.encrypted).not.toContain(created.secret);
    await expect(new TotpSecrets(Buffer.alloc(32, 8), 'x').verify(created.encrypted, '000000', now, null)).rejects.toThrow();
  });

  it('accepts the current code and its neighbours, and refuses a step at or before the last one used', async () => {
    const created = secrets.create('owner@example.com');
    const code = await generate({ secret: created.secret, epoch });
    const step = await secrets.verify(created.encrypted, code, now, null);
    expect(step).toBe(Math.floor(epoch / 30));
    const previous = await generate({ secret: created.secret, epoch: epoch - 30 });
    expect(await secrets.verify(created.encrypted, previous, now, null)).toBe(step! - 1);
    const old = await generate({ secret: created.secret, epoch: epoch - 90 });
    expect(await secrets.verify(created.encrypted, old, now, null)).toBeNull();
    expect(await secrets.verify(created.encrypted, code, now, step)).toBeNull();
  });
});
