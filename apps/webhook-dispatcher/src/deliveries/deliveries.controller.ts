import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { WEBHOOKS_COMMANDS, WEBHOOKS_SERVICE, type DeliveryList, type DeliveryView, type ObjectDeliveryList, type ReplayResult } from '@payments/contracts';
import { commandPattern, serveCommand, type RpcReply, type RpcRequest } from '@payments/platform';
import { DeliveriesService } from './deliveries.service';

/**
 * The gateway's delivery commands over the command transport (WEBHOOKS_COMMANDS), each checked against its schema by
 * the service; resend, replay and test act once per command id.
 */
@Controller()
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @MessagePattern(commandPattern(WEBHOOKS_SERVICE, WEBHOOKS_COMMANDS.listDeliveries))
  list(@Payload() request: RpcRequest<unknown>): Promise<RpcReply<DeliveryList>> {
    return serveCommand(request, (body) => this.deliveries.list(body));
  }

  @MessagePattern(commandPattern(WEBHOOKS_SERVICE, WEBHOOKS_COMMANDS.listObjectDeliveries))
  listOfObject(@Payload() request: RpcRequest<unknown>): Promise<RpcReply<ObjectDeliveryList>> {
    return serveCommand(request, (body) => this.deliveries.listOfObject(body));
  }

  @MessagePattern(commandPattern(WEBHOOKS_SERVICE, WEBHOOKS_COMMANDS.resendDelivery))
  resend(@Payload() request: RpcRequest<unknown>): Promise<RpcReply<DeliveryView>> {
    return serveCommand(request, (body) => this.deliveries.resend(body, request.command_id || undefined));
  }

  @MessagePattern(commandPattern(WEBHOOKS_SERVICE, WEBHOOKS_COMMANDS.replayEndpoint))
  replay(@Payload() request: RpcRequest<unknown>): Promise<RpcReply<ReplayResult>> {
    return serveCommand(request, (body) => this.deliveries.replay(body, request.command_id || undefined));
  }

  @MessagePattern(commandPattern(WEBHOOKS_SERVICE, WEBHOOKS_COMMANDS.sendTestEvent))
  sendTest(@Payload() request: RpcRequest<unknown>): Promise<RpcReply<DeliveryView>> {
    return serveCommand(request, (body) => this.deliveries.sendTest(body, request.command_id || undefined));
  }
}
