export * from './services';
export * from './postgres';
export * from './kafka';
export * from './stack';
export * from './dns-server';
