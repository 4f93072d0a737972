export * from './money-string';
export * from './fee-policy';
