import { parseMoneyString } from '@payments/money';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { SESSIONS_COMMAND_SCHEMAS } from './command.schemas';
import type { LedgerCommandName } from './ledger.contract';
import { LEDGER_COMMAND_SCHEMAS } from './ledger.schemas';
import { REFUNDS_COMMAND_SCHEMAS } from './refund.schemas';
import type { RefundsCommandName } from './refunds.contract';
import type { SessionsCommandName } from './sessions.contract';
import type { WebhooksCommandName } from './webhooks.contract';
import { WEBHOOKS_COMMAND_SCHEMAS } from './webhooks.schemas';

/** Every command with a schema (the names are unique across services). */
export type CheckedCommandName = SessionsCommandName | RefundsCommandName | LedgerCommandName | WebhooksCommandName;

export type CommandCheck = { ok: true } | { ok: false; param: string; message: string };

// strictTypes off: metadata values are any JSON, and their length limit applies to the strings among them.
const ajv = new Ajv({ allErrors: false, strict: true, strictTypes: false, strictRequired: false, allowUnionTypes: true });
addFormats(ajv);
// OpenAPI annotations the schemas carry for the API document.
ajv.addKeyword('example');
/**
 * A schema's bound in cents, read unbounded (a refund's minimum 0.01 is below a session's, its maximum a payment's
 * above); a bound that is no MoneyString is a defect of the schema, never a silent fall back to the defaults.
 */
function boundCents(text: string): number {
  const bound = parseMoneyString(text, { minCents: 0, maxCents: Number.MAX_SAFE_INTEGER });
  if (!bound.ok) throw new Error(`x-money bound ${text} ${bound.message}`);
  return bound.cents;
}

// A MoneyString within bounds: the same parser the services use for amounts.
ajv.addKeyword({
  keyword: 'x-money',
  type: 'string',
  schemaType: 'object',
  errors: true,
  validate: function money(bounds: { min: string; max: string }, value: string): boolean {
    const result = parseMoneyString(value, { minCents: boundCents(bounds.min), maxCents: boundCents(bounds.max) });
    if (result.ok) return true;
    (money as unknown as { errors: Partial<ErrorObject>[] }).errors = [{ keyword: 'x-money', message: result.message, params: {} }];
    return false;
  },
});

// Compiled once, at load: a command is checked on every call.
const validators = new Map<CheckedCommandName, ValidateFunction>();
for (const schemas of [SESSIONS_COMMAND_SCHEMAS, REFUNDS_COMMAND_SCHEMAS, LEDGER_COMMAND_SCHEMAS, WEBHOOKS_COMMAND_SCHEMAS]) {
  for (const [name, { request }] of Object.entries(schemas)) {
    if (validators.has(name as CheckedCommandName)) throw new Error(`two services name a command ${name}`);
    validators.set(name as CheckedCommandName, ajv.compile(request));
  }
}

const emailFormat = ajv.compile({ type: 'string', format: 'email' });

/** The schemas' `format: email`, for a layer that checks the same field without the whole schema (the gateway's DTOs). */
export function isEmailFormat(value: unknown): boolean {
  return emailFormat(value);
}

/** The API field an error is about: the command's `params` are the request body, so their prefix goes. */
function paramOf(error: ErrorObject): string {
  const params = error.params as { missingProperty?: string; additionalProperty?: string; propertyName?: string };
  const segments = error.instancePath.split('/').filter(Boolean);
  if (params.missingProperty) segments.push(params.missingProperty);
  if (params.additionalProperty) segments.push(params.additionalProperty);
  if (segments[0] === 'params') segments.shift();
  // Metadata keys are the merchant's own, not fields of the API: a problem inside it is about `metadata`.
  if (segments[0] === 'metadata') return 'metadata';
  return segments.join('.') || 'body';
}

const TYPE_NAMES: Record<string, string> = { string: 'a string', integer: 'an integer', number: 'a number', boolean: 'true or false', object: 'an object', array: 'an array', null: 'null' };

/** Ajv's "must be string,null" as the API's sentences say it: "must be a string or null". */
function typeMessage(error: ErrorObject): string {
  const types = ([] as string[]).concat((error.params as { type: string | string[] }).type);
  return `must be ${types.map((type) => TYPE_NAMES[type] ?? type).join(' or ')}`;
}

/** Checks a command's body against its schema; the first problem names the field at fault. */
export function validateCommand(name: CheckedCommandName, body: unknown): CommandCheck {
  const validate = validators.get(name);
  if (!validate) throw new Error(`no schema for command ${name}`);
  if (validate(body)) return { ok: true };
  const error = validate.errors![0]!;
  const param = paramOf(error);
  const message = error.keyword === 'additionalProperties' ? 'is not an accepted field' : error.keyword === 'type' ? typeMessage(error) : (error.message ?? 'is invalid');
  return { ok: false, param, message: `${param} ${message}` };
}
