export * from './config-error';
export * from './load-config';
export * from './service-config';
