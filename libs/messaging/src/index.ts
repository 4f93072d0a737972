// Domain events over Kafka with Postgres on both sides: the transactional outbox and its relay, and the
// consumer with its inbox (exactly-once handling), retries and dead letters.

// Kafka clients and topics.
export { createKafka, createKafkaLogCreator, createProducer, ACKS_ALL, type CreateKafkaOptions } from './kafka.factory';
export { ensureTopics } from './ensure-topics';
export { brokerSessionTimeoutBounds, sessionTimeoutFor, type SessionTimeoutBounds } from './session-timeout';
export { jsonLogger, errorMessage, type MessagingLogger } from './messaging.logger';

// The outbox: events written in the business transaction, relayed to Kafka.
export { OutboxWriter, envelopeHeaders, WALLET_PAYMENT_HEADER, type OutboxWriterOptions } from './outbox.writer';
export { OutboxRelay, DEFAULT_OUTBOX_MAX_BATCH_BYTES, outboxOldestUnsentAgeSeconds, type OutboxRelayHooks, type OutboxRelayOptions, type OutboxRelayStats } from './outbox.relay';

// The consumer: each event handled once, in the handler's transaction.
export { DEFAULT_SESSION_TIMEOUT_MS, EventConsumer, type EventConsumerHooks, type EventConsumerObserver, type EventConsumerOptions, type EventConsumerStats } from './event.consumer';
export { DeadLetterPublisher, type DeadLetter } from './dead-letter.publisher';
export { InboxStore } from './inbox.store';
export { EventRefused, type BeforeCommit, type ClaimedWrites, type EventHandler, type HandleOutcome, type MessageContext } from './event-handler';

// The tables the outbox and inbox need, as migrations to add to a service's own.
export { MESSAGING_MIGRATIONS } from './messaging-migrations';
export { MessagingTables1763769600000 } from './messaging-tables.migration';
export { InboxPruningIndex1763856000000 } from './inbox-pruning.migration';
export { OutboxPlainText1764700000000 } from './outbox-plain-text.migration';
export { OutboxParked1764900000000 } from './outbox-parked.migration';

// Small concurrency tools the services use on their hot paths.
export { backoffDelay, Wakeup } from './wakeup';
export { TurnBatcher } from './turn-batcher';
