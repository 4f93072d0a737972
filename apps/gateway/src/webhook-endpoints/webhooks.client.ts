import { Injectable } from '@nestjs/common';
import {
  DeliveryList,
  DeliveryView,
  ListDeliveriesCommand,
  ReplayEndpointCommand,
  ReplayResult,
  ResendDeliveryCommand,
  SendTestEventCommand,
  WEBHOOKS_COMMANDS,
  WEBHOOKS_SERVICE,
  WebhooksCommandName,
} from '@payments/contracts';
import { commandPattern, ServiceClient, type CommandOptions } from '@payments/platform';

/**
 * Typed commands to the webhook-dispatcher (delivery visibility). Only the listing is sent again after a lost
 * answer: the dispatcher does not yet deduplicate resend, replay and test by command id, so a lost answer there
 * is a 503 and the merchant's retry (with its Idempotency-Key) decides.
 */
@Injectable()
export class WebhooksClient {
  private readonly patterns = new Map<WebhooksCommandName, string>(
    Object.values(WEBHOOKS_COMMANDS).map((name) => [name, commandPattern(WEBHOOKS_SERVICE, name)]),
  );

  constructor(private readonly services: ServiceClient) {}

  listDeliveries(command: ListDeliveriesCommand, caller: CommandOptions): Promise<DeliveryList> {
    return this.send(WEBHOOKS_COMMANDS.listDeliveries, command, { ...caller, retryable: true });
  }

  /** Answers the delivery with its new attempt scheduled. */
  resendDelivery(command: ResendDeliveryCommand, caller: CommandOptions): Promise<DeliveryView> {
    return this.send(WEBHOOKS_COMMANDS.resendDelivery, command, { ...caller, retryable: false });
  }

  replayEndpoint(command: ReplayEndpointCommand, caller: CommandOptions): Promise<ReplayResult> {
    return this.send(WEBHOOKS_COMMANDS.replayEndpoint, command, { ...caller, retryable: false });
  }

  /** Answers the delivery of the test event. */
  sendTestEvent(command: SendTestEventCommand, caller: CommandOptions): Promise<DeliveryView> {
    return this.send(WEBHOOKS_COMMANDS.sendTestEvent, command, { ...caller, retryable: false });
  }

  private send<T>(name: WebhooksCommandName, body: object, caller: CommandOptions): Promise<T> {
    return this.services.request<T>(this.patterns.get(name)!, body, caller);
  }
}
