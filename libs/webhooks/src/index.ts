export * from './ip-address';
export * from './webhook-target';
export * from './signature';
export * from './webhook-scheme';
export * from './webhook-body';
export * from './webhook-headers';
export * from './retry-policy';
export * from './secret-box';
