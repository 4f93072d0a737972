/**
 * DEVELOPMENT ONLY: the default COMMAND_SECRET of every service, so a fresh checkout (scripts, tests, compose) runs
 * without setup. It is public (it is in the source), so every service refuses to start with it when
 * NODE_ENV=production.
 */
export const DEVELOPMENT_COMMAND_SECRET = 'DEVELOPMENT-ONLY-command-transport-secret';

/** Every COMMAND_SECRET written in this repository (the k8s dev overlay's too): all refused in production. */
export const PUBLISHED_COMMAND_SECRETS: readonly string[] = [DEVELOPMENT_COMMAND_SECRET, 'dev-only-command-secret-of-the-k8s-dev-overlay'];

/** Long enough that guessing is out of reach; `openssl rand -base64 32` gives 44 characters. */
export const MIN_COMMAND_SECRET_LENGTH = 32;

/**
 * COMMAND_SECRET as its list: one secret, or several comma-separated while one is being replaced (the first is the
 * one a caller proves; an owner accepts every one). Throws on an empty or short one, never quoting it.
 */
export function parseCommandSecrets(value: string): string[] {
  const secrets = value.split(',').map((secret) => secret.trim());
  if (secrets.some((secret) => secret.length === 0)) throw new Error('COMMAND_SECRET has an empty entry');
  const short = secrets.findIndex((secret) => secret.length < MIN_COMMAND_SECRET_LENGTH);
  if (short >= 0) throw new Error(`COMMAND_SECRET entry ${short + 1} is shorter than ${MIN_COMMAND_SECRET_LENGTH} characters`);
  return secrets;
}

/** Whether any entry of the setting is a secret written in the repository. */
export function isPublishedCommandSecret(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  return value.split(',').some((secret) => PUBLISHED_COMMAND_SECRETS.includes(secret.trim()));
}
