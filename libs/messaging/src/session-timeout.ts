import { ConfigResourceTypes, type Kafka } from 'kafkajs';
import { errorMessage, type MessagingLogger } from './messaging.logger';

/** The consumer session timeouts the brokers accept (`group.min.session.timeout.ms`, `group.max.session.timeout.ms`). */
export interface SessionTimeoutBounds {
  minMs: number;
  maxMs: number;
}

const MIN = 'group.min.session.timeout.ms';
const MAX = 'group.max.session.timeout.ms';

// One question per client, shared by its consumers; a failed one is asked again next time.
const asked = new WeakMap<Kafka, Promise<SessionTimeoutBounds | undefined>>();

/**
 * The session timeout a consumer asks for: `wantedMs`, within what the brokers accept. A broker refuses a join
 * outside its bounds (INVALID_SESSION_TIMEOUT) and the consumer would never start; one left at Kafka's default
 * floor (6 s) gets that floor instead, with a warning, since a crashed member's partitions then wait that long.
 * When the brokers cannot be asked (no DescribeConfigs permission), `wantedMs` as it is.
 */
export async function sessionTimeoutFor(kafka: Kafka, wantedMs: number, logger: MessagingLogger): Promise<number> {
  let bounds = asked.get(kafka);
  if (!bounds) {
    bounds = brokerSessionTimeoutBounds(kafka).catch((error: unknown) => {
      asked.delete(kafka);
      logger.warn({ err: errorMessage(error) }, `could not read the brokers' ${MIN}; asking for a ${wantedMs} ms consumer session`);
      return undefined;
    });
    asked.set(kafka, bounds);
  }
  const known = await bounds;
  if (!known) return wantedMs;
  const chosen = Math.min(Math.max(wantedMs, known.minMs), known.maxMs);
  if (chosen !== wantedMs) {
    logger.warn(
      { wantedMs, chosenMs: chosen, brokerMinMs: known.minMs, brokerMaxMs: known.maxMs },
      `the brokers do not accept a ${wantedMs} ms consumer session (KAFKA_SESSION_TIMEOUT_MS); using ${chosen} ms: set ${MIN} on the brokers (README)`,
    );
  }
  return chosen;
}

/** The strictest bounds over every broker (any of them may be a group's coordinator). */
export async function brokerSessionTimeoutBounds(kafka: Kafka): Promise<SessionTimeoutBounds> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { brokers } = await admin.describeCluster();
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: brokers.map((broker) => ({ type: ConfigResourceTypes.BROKER, name: String(broker.nodeId), configNames: [MIN, MAX] })),
    });
    const values = (name: string) => resources.flatMap((r) => r.configEntries.filter((e) => e.configName === name).map((e) => Number(e.configValue)));
    const mins = values(MIN).filter(Number.isFinite);
    const maxes = values(MAX).filter(Number.isFinite);
    if (mins.length === 0 || maxes.length === 0) throw new Error(`the brokers did not report ${MIN} and ${MAX}`);
    return { minMs: Math.max(...mins), maxMs: Math.min(...maxes) };
  } finally {
    await admin.disconnect();
  }
}
