export * from './sessions.contract';
