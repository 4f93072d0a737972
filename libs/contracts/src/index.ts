export * from './sessions.contract';
export * from './webhooks.contract';
export * from './resource.schemas';
export * from './resource-views';
