export * from './config-error';
export * from './load-config';
export * from './service-config';
export * from './config.validators';
export * from './webhook-service.config';
