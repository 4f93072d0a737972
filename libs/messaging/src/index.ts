export * from './messaging.logger';
export * from './kafka.factory';
export * from './ensure-topics';
export * from './sql-names';
export * from './messaging-tables.migration';
export * from './outbox.writer';
export * from './outbox.relay';
export * from './event.consumer';
export { backoffDelay } from './wakeup';
