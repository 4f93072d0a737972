/** Live and test data are fully separate; every id and key tells which side it belongs to. */
export type Environment = 'live' | 'test';

export const ENVIRONMENTS: readonly Environment[] = ['live', 'test'];

export function isEnvironment(value: unknown): value is Environment {
  return value === 'live' || value === 'test';
}
