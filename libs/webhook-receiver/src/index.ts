export * from './verify-webhook';
export * from './event-id-store';
export * from './webhook-handler';
