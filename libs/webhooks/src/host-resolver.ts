import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { LRUCache } from 'lru-cache';
import type { HostLookup, ResolvedAddress } from './webhook-target';

export interface HostResolverOptions {
  /** Name servers as `address` or `address:port`; default: the system's (/etc/resolv.conf). */
  servers?: readonly string[];
  /** Wait for one answer from one server before asking again. */
  timeoutMs?: number;
  /** Times each server is asked before the lookup fails. */
  tries?: number;
  /** Answers are kept for their TTL, never longer than this. */
  maxTtlSeconds?: number;
  /** A failed lookup (no such name, no answer, server failure) is remembered this long. */
  failureTtlSeconds?: number;
  /** Names of one owner (a merchant) being looked up at once; more wait for one to finish. */
  perOwnerInFlight?: number;
  /** Names kept in the cache. */
  maxEntries?: number;
}

/**
 * A comma-separated list of name servers, each `address`, `v4address:port` or `[v6address]:port` (what
 * `dns.setServers` takes); empty for the system's. Throws on anything else.
 */
export function parseNameServers(value: string): string[] {
  const servers = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const server of servers) {
    const withPort = /^(?:\[([^\]]+)\]|(\d{1,3}(?:\.\d{1,3}){3})):(\d{1,5})$/.exec(server);
    const address = withPort ? (withPort[1] ?? withPort[2]!) : server;
    const port = withPort ? Number(withPort[3]) : 53;
    if (isIP(address) === 0 || port < 1 || port > 65535 || (withPort?.[1] !== undefined && isIP(address) !== 6)) {
      throw new Error(`"${server}" is not an address or address:port`);
    }
  }
  return servers;
}

type CacheEntry = { addresses: ResolvedAddress[] } | { failure: string };

/** RFC 6761: `localhost` and names under it are loopback, without asking anyone (the hosts file is not read). */
const LOOPBACK: ResolvedAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];
const NOT_FOUND = new Set(['ENOTFOUND', 'ENODATA']);

const lookupError = (code: string) => Object.assign(new Error(`lookup failed: ${code}`), { code });

/**
 * Resolves webhook host names without the operating system's getaddrinfo, whose lookups hold one of libuv's four
 * threads each until they end: a name server that drops queries for one merchant's domain would otherwise stall
 * every lookup (and every file and crypto call) in the process. Here each query runs on the event loop (c-ares) with
 * its own timeout and tries; answers are cached for their TTL and failures briefly; one name is asked once however
 * many deliveries wait for it; and one owner has at most `perOwnerInFlight` names being asked at a time, so a
 * merchant with many names on a dead server cannot fill the resolver for everyone else.
 */
export class HostResolver {
  private readonly resolver: Resolver;
  private readonly cache: LRUCache<string, CacheEntry>;
  private readonly pending = new Map<string, Promise<ResolvedAddress[]>>();
  private readonly owners = new Map<string, { active: number; waiting: Array<() => void> }>();
  private readonly maxTtlMs: number;
  private readonly failureTtlMs: number;
  private readonly perOwner: number;

  constructor(options: HostResolverOptions = {}) {
    this.resolver = new Resolver({ timeout: options.timeoutMs ?? 1500, tries: options.tries ?? 2 });
    if (options.servers && options.servers.length > 0) this.resolver.setServers([...options.servers]);
    this.maxTtlMs = (options.maxTtlSeconds ?? 300) * 1000;
    this.failureTtlMs = (options.failureTtlSeconds ?? 5) * 1000;
    this.perOwner = options.perOwnerInFlight ?? 4;
    this.cache = new LRUCache({ max: options.maxEntries ?? 10_000, ttlAutopurge: false, allowStale: false });
  }

  /** Every address of `hostname` (IPv4 first), or an error with `code` (ENOTFOUND, ETIMEOUT, ...). */
  readonly lookup: HostLookup = async (hostname, context = {}) => {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    if (name === 'localhost' || name.endsWith('.localhost')) return LOOPBACK;
    const known = this.fromCache(name);
    if (known) return known;
    const shared = this.pending.get(name);
    if (shared) return untilAborted(shared, context.signal);

    const release = await this.takeSlot(context.owner ?? '', context.signal);
    // While this waited, another lookup of the name may have started or finished.
    const knownNow = this.fromCache(name);
    const sharedNow = this.pending.get(name);
    if (knownNow || sharedNow) {
      release();
      return knownNow ?? untilAborted(sharedNow!, context.signal);
    }
    const query = this.query(name).finally(() => {
      this.pending.delete(name);
      release();
    });
    this.pending.set(name, query);
    return untilAborted(query, context.signal);
  };

  /** Lookups in flight per owner (for metrics and tests). */
  inFlight(owner: string): number {
    return this.owners.get(owner)?.active ?? 0;
  }

  private fromCache(name: string): Promise<ResolvedAddress[]> | undefined {
    const entry = this.cache.get(name);
    if (!entry) return undefined;
    return 'addresses' in entry ? Promise.resolve(entry.addresses) : Promise.reject(lookupError(entry.failure));
  }

  private async query(name: string): Promise<ResolvedAddress[]> {
    const [v4, v6] = await Promise.allSettled([this.resolver.resolve4(name, { ttl: true }), this.resolver.resolve6(name, { ttl: true })]);
    const addresses: ResolvedAddress[] = [];
    let ttlSeconds = Infinity;
    for (const [answer, family] of [[v4, 4], [v6, 6]] as const) {
      if (answer.status !== 'fulfilled') continue;
      for (const record of answer.value) {
        addresses.push({ address: record.address, family });
        ttlSeconds = Math.min(ttlSeconds, record.ttl);
      }
    }
    if (addresses.length > 0) {
      this.cache.set(name, { addresses }, { ttl: Math.min(Math.max(ttlSeconds * 1000, 1000), this.maxTtlMs) });
      return addresses;
    }
    // Neither family has an address: "no such name" only when both said so, else the first real failure.
    const codes = [v4, v6].map((answer) => (answer.status === 'rejected' ? ((answer.reason as NodeJS.ErrnoException).code ?? 'EFAIL') : 'ENODATA'));
    const code = codes.find((c) => !NOT_FOUND.has(c)) ?? 'ENOTFOUND';
    this.cache.set(name, { failure: code }, { ttl: this.failureTtlMs });
    throw lookupError(code);
  }

  private takeSlot(owner: string, signal?: AbortSignal): Promise<() => void> {
    const slots = this.owners.get(owner) ?? { active: 0, waiting: [] };
    this.owners.set(owner, slots);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const next = slots.waiting.shift();
      if (next) return next();
      slots.active -= 1;
      if (slots.active === 0) this.owners.delete(owner);
    };
    if (slots.active < this.perOwner) {
      slots.active += 1;
      return Promise.resolve(release);
    }
    // A finished lookup hands its slot straight to the next waiter (the count stays).
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(release);
      };
      const onAbort = () => {
        slots.waiting.splice(slots.waiting.indexOf(grant), 1);
        reject(signal!.reason);
      };
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      slots.waiting.push(grant);
    });
  }
}

/** The shared lookup goes on for the others; this caller stops waiting when its own attempt is abandoned. */
function untilAborted<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
