/** Injection tokens of the process-wide Kafka client and idempotent producer. */
export const KAFKA = Symbol('KAFKA');
export const KAFKA_PRODUCER = Symbol('KAFKA_PRODUCER');
