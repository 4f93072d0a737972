import { checkWebhookTarget, resolveWebhookTarget, type HostLookup } from './webhook-target';

const production = { allowInsecure: false };
const development = { allowInsecure: true };

/** A resolver answering from a table, counting its calls. */
function table(entries: Record<string, string[]>): HostLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (host: string) => {
    calls.push(host);
    const addresses = entries[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

describe('resolveWebhookTarget', () => {
  const dns = table({
    'hooks.shop.example': ['93.184.216.34'],
    'v6.shop.example': ['2606:4700:4700::1111'],
    'rebind.example': ['127.0.0.1'],
    'mixed.example': ['93.184.216.34', '10.0.0.8'],
    'metadata.example': ['169.254.169.254'],
    localhost: ['127.0.0.1', '::1'],
  });

  it('gives the checked address to connect to, with the original Host and TLS server name', async () => {
    const check = await resolveWebhookTarget('https://hooks.shop.example:8443/webhooks?x=1', production, dns);
    expect(check).toEqual({
      ok: true,
      target: expect.objectContaining({
        address: '93.184.216.34',
        family: 4,
        connectUrl: 'https://93.184.216.34:8443/webhooks?x=1',
        hostHeader: 'hooks.shop.example:8443',
        servername: 'hooks.shop.example',
      }),
    });
  });

  it('brackets an IPv6 address in the connect URL', async () => {
    const check = await resolveWebhookTarget('https://v6.shop.example/h', production, dns);
    expect(check.ok && check.target.connectUrl).toBe('https://[2606:4700:4700::1111]/h');
  });

  it.each([
    ['http://hooks.shop.example/h', 'insecure_scheme'],
    ['ftp://hooks.shop.example/h', 'insecure_scheme'],
    ['https://user:pw@hooks.shop.example/h', 'credentials_in_url'],
    ['not a url', 'invalid_url'],
    ['https://nowhere.example/h', 'unresolvable'],
    ['https://rebind.example/h', 'loopback'],
    ['https://localhost:3000/h', 'loopback'],
    ['https://mixed.example/h', 'private'],
    ['https://metadata.example/latest', 'metadata'],
    ['https://127.0.0.1/h', 'loopback'],
    ['https://0x7f.1/h', 'loopback'],
    ['https://2130706433/h', 'loopback'],
    ['https://[::1]/h', 'loopback'],
    ['https://[::ffff:127.0.0.1]/h', 'loopback'],
    ['https://[::ffff:a9fe:a9fe]/h', 'metadata'],
    ['https://0.0.0.0/h', 'unspecified'],
    ['https://10.1.2.3/h', 'private'],
    ['https://192.168.0.10/h', 'private'],
    ['https://172.20.0.1/h', 'private'],
    ['https://100.64.1.1/h', 'cgnat'],
    ['https://169.254.169.254/latest/meta-data', 'metadata'],
    ['https://169.254.10.10/h', 'link_local'],
    ['https://224.0.0.251/h', 'multicast'],
    ['https://[fc00::1]/h', 'unique_local'],
    ['https://[fd12:3456::1]/h', 'unique_local'],
    ['https://[fe80::1]/h', 'link_local'],
    ['https://[ff02::1]/h', 'multicast'],
  ])('refuses %s under production settings (%s)', async (url, reason) => {
    const check = await resolveWebhookTarget(url, production, dns);
    expect(check).toMatchObject({ ok: false, reason });
  });

  it('allows http and loopback only with the development setting; private ranges stay refused', async () => {
    expect((await resolveWebhookTarget('http://127.0.0.1:4000/h', development, dns)).ok).toBe(true);
    expect((await resolveWebhookTarget('http://localhost:4000/h', development, dns)).ok).toBe(true);
    expect((await resolveWebhookTarget('http://[::1]:4000/h', development, dns)).ok).toBe(true);
    expect(await resolveWebhookTarget('http://10.0.0.1/h', development, dns)).toMatchObject({ ok: false, reason: 'private' });
    expect(await resolveWebhookTarget('http://169.254.169.254/h', development, dns)).toMatchObject({ ok: false, reason: 'metadata' });
  });

  it('resolves names once per check and never for address literals', async () => {
    const counting = table({ 'hooks.shop.example': ['93.184.216.34'] });
    await resolveWebhookTarget('https://hooks.shop.example/h', production, counting);
    await resolveWebhookTarget('https://93.184.216.34/h', production, counting);
    expect(counting.calls).toEqual(['hooks.shop.example']);
  });
});

describe('checkWebhookTarget (configuration time)', () => {
  const dns = table({ 'hooks.shop.example': ['93.184.216.34', '2606:4700:4700::1111'], 'inside.example': ['10.0.0.7'] });

  it('answers the addresses or a reason that reads after the field name', async () => {
    expect(await checkWebhookTarget('https://hooks.shop.example/h', production, dns)).toEqual({
      ok: true,
      addresses: ['93.184.216.34', '2606:4700:4700::1111'],
    });
    expect(await checkWebhookTarget('http://hooks.shop.example/h', production, dns)).toEqual({ ok: false, reason: 'must start with https://' });
    expect(await checkWebhookTarget('https://inside.example/h', production, dns)).toEqual({
      ok: false,
      // Never which address or which kind of network: that would map internal names for a merchant.
      reason: 'does not resolve to a public address',
    });
  });
});
