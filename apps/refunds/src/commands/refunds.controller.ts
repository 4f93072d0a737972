import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { REFUNDS_COMMANDS, REFUNDS_SERVICE, type RefundsCommandMap, type RefundsCommandName } from '@payments/contracts';
import { ApiError, CommandContext, commandPattern, serveCommand, type RpcReply, type RpcRequest } from '@payments/platform';
import { RefundRefused } from '../domain';
import { RefundHandlers } from '../refunds/refund.handlers';

type Routes = { [N in RefundsCommandName]: (body: unknown, correlationId: string) => Promise<RefundsCommandMap[N]['reply']> };

const PREFIX = commandPattern(REFUNDS_SERVICE, '');

/** The domain's refusals as API errors, at the edge only. */
function mapRefundsError(error: unknown): ApiError | undefined {
  if (!(error instanceof RefundRefused)) return undefined;
  return error.reason === 'exceeds_payment' ? new ApiError('refund_exceeds_payment', error.message, 'amount') : new ApiError('invalid_state', error.message);
}

/** Every refunds command over the command transport, routed by name (each handler checks its body's schema). */
@Controller()
export class RefundsController {
  private readonly routes: Routes;

  constructor(refunds: RefundHandlers) {
    this.routes = {
      [REFUNDS_COMMANDS.createRefund]: (body, correlationId) => refunds.create(body, correlationId),
      [REFUNDS_COMMANDS.getRefund]: (body) => refunds.getRefund(body),
      [REFUNDS_COMMANDS.listRefunds]: (body) => refunds.listRefunds(body),
      [REFUNDS_COMMANDS.getPayment]: (body, correlationId) => refunds.getPayment(body, correlationId),
      [REFUNDS_COMMANDS.listPayments]: (body) => refunds.listPayments(body),
      [REFUNDS_COMMANDS.providerRefundSettled]: (body, correlationId) => refunds.providerRefundSettled(body, correlationId),
    };
  }

  @MessagePattern(Object.values(REFUNDS_COMMANDS).map((name) => commandPattern(REFUNDS_SERVICE, name)))
  handle(@Payload() request: RpcRequest<unknown>, @Ctx() context: CommandContext): Promise<RpcReply<unknown>> {
    const name = context.getPattern().slice(PREFIX.length) as RefundsCommandName;
    const route: (body: unknown, correlationId: string) => Promise<unknown> = this.routes[name];
    return serveCommand(request, (body) => route(body, request.correlation_id), mapRefundsError);
  }
}
