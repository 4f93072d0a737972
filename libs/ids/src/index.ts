export * from './environment';
export * from './random-base62';
export * from './prefixed-ids';
export * from './payment-id';
export * from './api-key';
