import { Logger } from '@nestjs/common';
import { ClientKafka } from '@nestjs/microservices';
import { firstValueFrom, timeout, TimeoutError } from 'rxjs';
import { ApiError } from '../errors/api-error';
import { rpcRoundTripDuration } from '../metrics/metrics';
import type { RpcReply, RpcRequest } from './rpc-message';

/**
 * The gateway's side of request/reply: sends a command and waits for its reply up to the timeout, which
 * becomes 503 service_unavailable so the merchant retries (idempotency keys make the retry safe).
 */
export class ServiceClient {
  private readonly logger = new Logger('ServiceClient');

  constructor(
    private readonly client: ClientKafka,
    private readonly timeoutMs: number,
  ) {}

  /** `command` is the command's name (commandTopic()); the transport routes it to its service's topic. */
  async request<TData, TBody = unknown>(command: string, body: TBody, correlationId: string): Promise<TData> {
    const message: RpcRequest<TBody> = { deadline: Date.now() + this.timeoutMs, correlation_id: correlationId, body };
    let reply: RpcReply<TData>;
    const timer = rpcRoundTripDuration.startTimer({ topic: command });
    try {
      reply = await firstValueFrom(
        this.client.send<RpcReply<TData>, RpcRequest<TBody>>(command, message).pipe(timeout(this.timeoutMs)),
      );
      timer({ outcome: reply.ok ? 'ok' : 'error' });
    } catch (error) {
      timer({ outcome: error instanceof TimeoutError ? 'timeout' : 'failed' });
      if (!(error instanceof TimeoutError)) this.logger.error({ err: error, command }, 'request failed');
      throw new ApiError('service_unavailable', 'The service is temporarily unavailable. Retry later.', undefined, {
        'Retry-After': '1',
      });
    }
    if (!reply.ok) throw ApiError.fromJSON(reply.error);
    return reply.data;
  }
}
