import { Logger } from '@nestjs/common';
import type { ClientProxy } from '@nestjs/microservices';
import { randomUUID } from 'node:crypto';
import { firstValueFrom, timeout, TimeoutError } from 'rxjs';
import { ApiError } from '../errors/api-error';
import { rpcRoundTripDuration } from '../metrics/metrics';
import { CommandUnavailableError, type CommandPacket } from './command.client';
import type { RpcReply } from './rpc-message';

export interface CommandOptions {
  correlationId: string;
  /** The Idempotency-Key where the caller has one; otherwise a fresh id names this one command. */
  commandId?: string;
  /**
   * The owner acts on a command id once, so a command whose answer was lost may be sent again (default). False
   * for commands whose owner does not deduplicate them: a lost answer is a 503 and the merchant decides.
   */
  retryable?: boolean;
}

/**
 * The caller's side of a command: sends it with its id and deadline and waits for the reply up to the timeout,
 * which becomes 503 service_unavailable so the merchant retries (the command id makes the retry safe).
 */
export class ServiceClient {
  private readonly logger = new Logger('ServiceClient');

  constructor(
    private readonly client: ClientProxy,
    private readonly timeoutMs: number,
  ) {}

  /** `command` is the command's pattern (commandPattern()); the transport routes it to its owner. */
  async request<TData, TBody = unknown>(command: string, body: TBody, options: CommandOptions): Promise<TData> {
    const packet: CommandPacket = {
      command_id: options.commandId ?? randomUUID(),
      deadline: Date.now() + this.timeoutMs,
      correlation_id: options.correlationId,
      body,
      retryable: options.retryable ?? true,
    };
    let reply: RpcReply<TData>;
    const timer = rpcRoundTripDuration.startTimer({ command });
    try {
      reply = await firstValueFrom(this.client.send<RpcReply<TData>, CommandPacket>(command, packet).pipe(timeout(this.timeoutMs)));
      timer({ outcome: reply.ok ? 'ok' : 'error' });
    } catch (error) {
      timer({ outcome: error instanceof TimeoutError ? 'timeout' : 'failed' });
      if (!(error instanceof TimeoutError) && !(error instanceof CommandUnavailableError)) this.logger.error({ err: error, command }, 'request failed');
      throw new ApiError('service_unavailable', 'The service is temporarily unavailable. Retry later.', undefined, { 'Retry-After': '1' });
    }
    if (!reply.ok) throw ApiError.fromJSON(reply.error);
    return reply.data;
  }
}
