import type { ErrorCode } from '../errors/api-error';

/** What a handler receives: the command body plus the caller's command id, deadline and tracing id. */
export interface RpcRequest<TBody = unknown> {
  /**
   * Names this command across retries (the Idempotency-Key where the caller has one): an owner that has already
   * acted on it answers its result again instead of acting twice.
   */
  command_id: string;
  /** Epoch ms after which the caller no longer waits; the owner does not start a command past it. */
  deadline: number;
  correlation_id: string;
  body: TBody;
}

export type RpcReply<TData = unknown> =
  | { ok: true; data: TData }
  | { ok: false; error: { code: ErrorCode; message: string; param?: string } };
