import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import * as dnsPacket from 'dns-packet';

export interface TestDnsServerOptions {
  /** Names answered, with their addresses (v4 as A records, v6 as AAAA); any other name is NXDOMAIN. */
  zone: Record<string, string[]>;
  /** Names whose queries are never answered (a name server that drops them). */
  drops?: (name: string) => boolean;
  /** TTL of every answer, in seconds. */
  ttlSeconds?: number;
}

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, as WEBHOOK_DNS_SERVERS takes it. */
  address: string;
  /** Every query received, as `<type> <name>`, in order. */
  queries: string[];
  /** Queries dropped so far (never answered). */
  dropped(): number;
  close(): Promise<void>;
}

/** A name server on loopback UDP for tests: answers from a fixed zone, drops what it is told to drop. */
export async function startTestDnsServer(options: TestDnsServerOptions): Promise<TestDnsServer> {
  const socket = createSocket('udp4');
  const queries: string[] = [];
  let dropped = 0;
  socket.on('message', (message, remote) => {
    const query = dnsPacket.decode(message);
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    queries.push(`${question.type} ${name}`);
    if (options.drops?.(name)) {
      dropped += 1;
      return;
    }
    const known = options.zone[name];
    const family = question.type === 'AAAA' ? 6 : 4;
    const answers = (known ?? [])
      .filter((address) => (address.includes(':') ? 6 : 4) === family && (question.type === 'A' || question.type === 'AAAA'))
      .map((address) => ({ type: question.type as 'A' | 'AAAA', name: question.name, ttl: options.ttlSeconds ?? 60, data: address }));
    const rcode = known ? 0 : 3; // NOERROR (maybe without records of this type) or NXDOMAIN
    const reply = dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | rcode,
      questions: [question],
      answers,
    });
    socket.send(reply, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    queries,
    dropped: () => dropped,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
