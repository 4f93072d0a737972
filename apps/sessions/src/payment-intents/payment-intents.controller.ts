import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { commandPattern, serveCommand, type RpcReply, type RpcRequest } from '@payments/platform';
import {
  SESSIONS_COMMANDS,
  SESSIONS_SERVICE,
  type CancelPaymentIntentCommand,
  type CreatePaymentIntentCommand,
  type GetPaymentIntentCommand,
  type PaymentIntentResource,
  type SimulatePaymentIntentCommand,
} from '@payments/contracts';
import { correlationOf } from '../commands/correlation';
import { mapSessionsError } from '../commands/sessions-error.mapper';
import { PaymentIntentHandlers } from './payment-intent.handlers';

/** Payment intent commands over the command transport (PaymentIntentHandlers checks each body against its schema). */
@Controller()
export class PaymentIntentsController {
  constructor(private readonly intents: PaymentIntentHandlers) {}

  @MessagePattern(commandPattern(SESSIONS_SERVICE, SESSIONS_COMMANDS.createPaymentIntent))
  create(@Payload() request: RpcRequest<CreatePaymentIntentCommand>): Promise<RpcReply<PaymentIntentResource>> {
    return serveCommand(request, (body) => this.intents.create(body, correlationOf(request)), mapSessionsError);
  }

  @MessagePattern(commandPattern(SESSIONS_SERVICE, SESSIONS_COMMANDS.getPaymentIntent))
  get(@Payload() request: RpcRequest<GetPaymentIntentCommand>): Promise<RpcReply<PaymentIntentResource>> {
    return serveCommand(request, (body) => this.intents.get(body), mapSessionsError);
  }

  @MessagePattern(commandPattern(SESSIONS_SERVICE, SESSIONS_COMMANDS.simulatePaymentIntent))
  simulate(@Payload() request: RpcRequest<SimulatePaymentIntentCommand>): Promise<RpcReply<PaymentIntentResource>> {
    return serveCommand(request, (body) => this.intents.simulate(body, correlationOf(request), request.command_id), mapSessionsError);
  }

  @MessagePattern(commandPattern(SESSIONS_SERVICE, SESSIONS_COMMANDS.cancelPaymentIntent))
  cancel(@Payload() request: RpcRequest<CancelPaymentIntentCommand>): Promise<RpcReply<PaymentIntentResource>> {
    return serveCommand(request, (body) => this.intents.cancel(body, correlationOf(request), request.command_id), mapSessionsError);
  }
}
