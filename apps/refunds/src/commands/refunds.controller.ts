import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { REFUNDS_COMMANDS, REFUNDS_SERVICE, type RefundsCommandMap, type RefundsCommandName } from '@payments/contracts';
import { ApiError, CommandContext, commandPattern, serveCommand, type RpcReply, type RpcRequest } from '@payments/platform';
import { RefundRefused } from '../domain';
import { RefundHandlers } from '../refunds/refund.handlers';

/** Who sent a command: its request's correlation id and the command's own id (what the events it causes name). */
interface Sender {
  correlationId: string;
  commandId: string;
}

type Routes = { [N in RefundsCommandName]: (body: unknown, sender: Sender) => Promise<RefundsCommandMap[N]['reply']> };

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
      [REFUNDS_COMMANDS.createRefund]: (body, sender) => refunds.create(body, sender.correlationId, sender.commandId),
      [REFUNDS_COMMANDS.getRefund]: (body) => refunds.getRefund(body),
      [REFUNDS_COMMANDS.listRefunds]: (body) => refunds.listRefunds(body),
      [REFUNDS_COMMANDS.getPayment]: (body, sender) => refunds.getPayment(body, sender.correlationId),
      [REFUNDS_COMMANDS.listPayments]: (body) => refunds.listPayments(body),
      [REFUNDS_COMMANDS.providerRefundSettled]: (body, sender) => refunds.providerRefundSettled(body, sender.correlationId, sender.commandId),
    };
  }

  @MessagePattern(Object.values(REFUNDS_COMMANDS).map((name) => commandPattern(REFUNDS_SERVICE, name)))
  handle(@Payload() request: RpcRequest<unknown>, @Ctx() context: CommandContext): Promise<RpcReply<unknown>> {
    const name = context.getPattern().slice(PREFIX.length) as RefundsCommandName;
    const route: (body: unknown, sender: Sender) => Promise<unknown> = this.routes[name];
    return serveCommand(request, (body) => route(body, { correlationId: request.correlation_id, commandId: request.command_id }), mapRefundsError);
  }
}
