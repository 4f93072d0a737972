import { classifyAddress, type AddressKind } from './ip-address';

/** One resolved address of a host name. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Who a lookup is for (its merchant, whose lookups in flight are capped) and when its caller gives up. */
export interface LookupContext {
  owner?: string;
  signal?: AbortSignal;
}

/** Every address of a host name; `HostResolver.lookup` in the services, a table in tests. */
export type HostLookup = (hostname: string, context?: LookupContext) => Promise<ResolvedAddress[]>;

export interface TargetPolicy {
  /** Development and tests only: also `http://` and loopback addresses. */
  allowInsecure: boolean;
}

/** A URL longer than this is refused outright. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

export type TargetRefusal =
  | 'invalid_url'
  | 'insecure_scheme'
  | 'credentials_in_url'
  | 'unresolvable'
  | Exclude<AddressKind, 'public' | 'invalid'>;

/** Where to connect for one delivery: the checked address, with the name the request and TLS must carry. */
export interface WebhookTarget {
  url: URL;
  /** The address that passed the check; the connection goes here and nowhere else. */
  address: string;
  family: 4 | 6;
  /** `https://<address>:<port><path>`: the request line's target with the host name replaced by the address. */
  connectUrl: string;
  /** The Host header: the configured host (and port). */
  hostHeader: string;
  /** TLS server name (SNI and certificate check); null when the URL names an address. */
  servername: string | null;
}

export type TargetCheck = { ok: true; target: WebhookTarget } | { ok: false; reason: TargetRefusal; message: string; address?: string };


const refuse = (reason: TargetRefusal, message: string, address?: string): TargetCheck => ({ ok: false, reason, message, address });
const NOT_PUBLIC = 'does not resolve to a public address';

const unbracket = (host: string) => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

/** Checks the parts of a URL that need no resolution: scheme and credentials. */
export function checkWebhookUrlSyntax(raw: string, policy: TargetPolicy): { ok: true; url: URL } | { ok: false; reason: TargetRefusal; message: string } {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH || /\s/.test(raw)) {
    return { ok: false, reason: 'invalid_url', message: `must be an absolute URL of at most ${MAX_WEBHOOK_URL_LENGTH} characters` };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch (error) {
    return { ok: false, reason: 'invalid_url', message: `must be an absolute URL (${(error as Error).message})` };
  }
  const schemeOk = url.protocol === 'https:' || (policy.allowInsecure && url.protocol === 'http:');
  if (!schemeOk) return { ok: false, reason: 'insecure_scheme', message: policy.allowInsecure ? 'must start with https:// or http://' : 'must start with https://' };
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'credentials_in_url', message: 'must not carry a user name or password' };
  }
  if (url.hostname === '') return { ok: false, reason: 'invalid_url', message: 'must name a host' };
  return { ok: true, url };
}

/** Whether one address may be a webhook target under the policy. */
export function addressAllowed(kind: AddressKind, policy: TargetPolicy): boolean {
  return kind === 'public' || (policy.allowInsecure && kind === 'loopback');
}

/**
 * Resolves a webhook URL and checks every address it resolves to (not just the first: an answer mixing a public
 * and a private address is refused). Used when an endpoint is configured and again before each delivery; the
 * delivery then connects to `target.address`, so what was checked is what is reached (no DNS-rebinding gap).
 */
export async function resolveWebhookTarget(raw: string, policy: TargetPolicy, lookup: HostLookup): Promise<TargetCheck> {
  const syntax = checkWebhookUrlSyntax(raw, policy);
  if (!syntax.ok) return refuse(syntax.reason, syntax.message);
  const url = syntax.url;
  const host = unbracket(url.hostname);

  let addresses: ResolvedAddress[];
  if (classifyAddress(host) !== 'invalid') {
    addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  } else {
    try {
      // The lookup is bounded by its resolver's timeouts and tries (HostResolver).
      addresses = await lookup(host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      return refuse('unresolvable', `names host ${host}, which could not be resolved (${code})`);
    }
    if (addresses.length === 0) return refuse('unresolvable', `names host ${host}, which has no address`);
  }

  for (const { address } of addresses) {
    const kind = classifyAddress(address);
    // The message never names the address or its kind: a merchant could map internal names to internal
    // addresses with it. The reason and the address stay on the result, for the service's own log.
    if (kind === 'invalid') return refuse('unresolvable', NOT_PUBLIC, address);
    if (!addressAllowed(kind, policy)) return refuse(kind as Exclude<AddressKind, 'public' | 'invalid'>, NOT_PUBLIC, address);
  }

  const chosen = addresses[0]!;
  const family: 4 | 6 = chosen.address.includes(':') ? 6 : 4;
  const addressHost = family === 6 ? `[${chosen.address}]` : chosen.address;
  const port = url.port === '' ? '' : `:${url.port}`;
  return {
    ok: true,
    target: {
      url,
      address: chosen.address,
      family,
      connectUrl: `${url.protocol}//${addressHost}${port}${url.pathname}${url.search}`,
      hostHeader: url.host,
      servername: classifyAddress(host) === 'invalid' ? host : null,
    },
  };
}

/**
 * The configuration-time check (gateway): whether `url` may receive webhooks now. `reason` reads after the
 * field name, e.g. "url does not resolve to a public address" (never which address, nor which kind).
 */
export async function checkWebhookTarget(
  url: string,
  policy: TargetPolicy,
  lookup: HostLookup,
): Promise<{ ok: true; addresses: string[] } | { ok: false; reason: string }> {
  const syntax = checkWebhookUrlSyntax(url, policy);
  if (!syntax.ok) return { ok: false, reason: syntax.message };
  const resolved: ResolvedAddress[] = [];
  const recording: HostLookup = async (host, context) => {
    const found = await lookup(host, context);
    resolved.push(...found);
    return found;
  };
  const check = await resolveWebhookTarget(url, policy, recording);
  if (!check.ok) return { ok: false, reason: check.message };
  return { ok: true, addresses: resolved.length > 0 ? resolved.map((a) => a.address) : [check.target.address] };
}
