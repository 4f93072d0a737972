import type { ErrorCode } from '../errors/api-error';

/** What the gateway sends: the command body plus the caller's deadline and tracing ids. */
export interface RpcRequest<TBody = unknown> {
  deadline: number;
  correlation_id: string;
  body: TBody;
}

export type RpcReply<TData = unknown> =
  | { ok: true; data: TData }
  | { ok: false; error: { code: ErrorCode; message: string; param?: string } };
