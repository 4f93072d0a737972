import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable, tap } from 'rxjs';
import { CommandContext } from '../rpc/http-command.server';
import type { RpcReply } from '../rpc/rpc-message';
import { commandHandleDuration } from './metrics';

/** Times every command a service handles, so a slow request can be split into transit and handling. */
@Injectable()
export class CommandMetricsInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'rpc') return next.handle();
    const command = context.switchToRpc().getContext<CommandContext>().getPattern();
    const stop = commandHandleDuration.startTimer({ command });
    return next.handle().pipe(
      tap({
        next: (reply) => stop({ outcome: (reply as RpcReply | undefined)?.ok === false ? 'error' : 'ok' }),
        error: () => stop({ outcome: 'failed' }),
      }),
    );
  }
}
