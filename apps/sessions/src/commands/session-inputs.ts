// What creates and simulations of every kind of session share: the create's input and the fields it gives the
// new session, the request that names it, and the test-mode-only rule of simulations.
import { type SessionsCommandName } from '@payments/contracts';
import type { Environment } from '@payments/ids';
import type { FeeSchedule } from '@payments/money';
import type { CommandCaller, CreateRequest } from '../command-pipeline/session-commands';
import { DomainError } from '../domain';
import type { StreamScope } from '../event-store/event-store';
import { requestFingerprint } from '@payments/contracts';
import { merchantFeeSchedule, parseCommand, parseMerchantSettings, parseSessionParams, type ParsedSessionParams } from './command-input';

export interface CreateSessionInput {
  readonly scope: StreamScope;
  readonly idempotencyKey: string;
  /** Of the request's params: the same key with other params is refused. */
  readonly fingerprint: string;
  readonly correlationId: string;
  readonly params: ParsedSessionParams;
  readonly enabledMethods: readonly string[];
  readonly feeSchedule: FeeSchedule;
}

export interface SimulateSessionInput<Result extends string, Method extends string> {
  readonly scope: StreamScope;
  readonly id: string;
  readonly result: Result;
  readonly method?: Method;
  readonly caller: CommandCaller;
}

/** The create request of a new session with this id. */
export function createRequest(id: string, input: CreateSessionInput): CreateRequest {
  return { id, key: input.idempotencyKey, fingerprint: input.fingerprint, correlationId: input.correlationId };
}

/** The fields of a new session every kind takes from a create (each kind adds its own: methods, number). */
export function newSessionFields(id: string, input: CreateSessionInput, now: Date) {
  const { scope, params } = input;
  return {
    id,
    merchantId: scope.merchantId,
    environment: scope.environment as Environment,
    amountCents: params.amountCents,
    currency: params.currency,
    description: params.description,
    externalRef: params.externalRef,
    successUrl: params.successUrl,
    cancelUrl: params.cancelUrl,
    customer: params.customer,
    metadata: params.metadata,
    expiresInSeconds: params.expiresInSeconds,
    feeSchedule: input.feeSchedule,
    now,
  };
}

/** Simulations are test mode only. */
export function assertTestMode(scope: StreamScope, kind: 'payment intents' | 'invoices'): void {
  if (scope.environment !== 'test') throw new DomainError('live_mode_not_allowed', `Only test ${kind} can be simulated; use a test key.`);
}

/** A create command's body, checked against its schema, as the create use cases take it. */
export function parseCreateCommand(name: SessionsCommandName, body: unknown, correlationId: string): CreateSessionInput {
  const { command, ...scope } = parseCommand(name, body);
  const merchant = parseMerchantSettings(command.merchant);
  return {
    scope,
    idempotencyKey: command.idempotency_key as string,
    fingerprint: requestFingerprint(name, command.params),
    correlationId,
    params: parseSessionParams(command.params),
    enabledMethods: merchant.enabledMethods,
    feeSchedule: merchantFeeSchedule(merchant.feeOverrides),
  };
}
