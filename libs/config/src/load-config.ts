import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { ConfigError } from './config-error';

type Env = Record<string, string | undefined>;

/**
 * Parses and validates settings once at start. Empty strings count as unset, so a default applies;
 * a value that is present but wrong stops the service with a message naming the variable.
 */
export function loadConfig<T extends object>(
  cls: new () => T,
  env: Env = process.env,
  defaults: Record<string, string> = {},
): T {
  const raw: Record<string, string> = { ...defaults };
  for (const [key, value] of Object.entries(env)) if (value !== undefined && value !== '') raw[key] = value;
  const config = plainToInstance(cls, raw, { enableImplicitConversion: true, exposeDefaultValues: true });
  const errors = validateSync(config, { whitelist: false, forbidUnknownValues: false });
  if (errors.length > 0) throw new ConfigError(errors.flatMap((e) => describe(e, raw)));
  return config;
}

function describe(error: ValidationError, raw: Record<string, string>): string[] {
  const given = error.property in raw ? ` (got ${JSON.stringify(redactIfSecret(error.property, raw[error.property]))})` : ' (not set)';
  return Object.values(error.constraints ?? {}).map((message) => `${error.property}: ${message}${given}`);
}

/** Secret-named settings whole, and the password of any URL (`postgres://user:pass@…`), are never printed. */
function redactIfSecret(name: string, value: string | undefined): string | undefined {
  if (/SECRET|PASSWORD|KEY|TOKEN/i.test(name)) return '[redacted]';
  return value?.replace(/(\/\/[^/?#@:]*:)[^/?#@]*@/g, '$1[redacted]@');
}
