export * from './sessions.contract';
export * from './webhooks.contract';
