import { Injectable } from '@nestjs/common';
import {
  DeliveryList,
  DeliveryView,
  ListDeliveriesCommand,
  ListObjectDeliveriesCommand,
  ObjectDeliveryList,
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
 * Typed commands to the webhook-dispatcher (delivery visibility). Every one is safe to send again after a lost
 * answer: the listing reads, and the dispatcher does resend, replay and test once per command id (the merchant's
 * Idempotency-Key where it sent one).
 */
@Injectable()
export class WebhooksClient {
  private readonly patterns = new Map<WebhooksCommandName, string>(
    Object.values(WEBHOOKS_COMMANDS).map((name) => [name, commandPattern(WEBHOOKS_SERVICE, name)]),
  );

  constructor(private readonly services: ServiceClient) {}

  listDeliveries(command: ListDeliveriesCommand, caller: CommandOptions): Promise<DeliveryList> {
    return this.send(WEBHOOKS_COMMANDS.listDeliveries, command, caller);
  }

  /** The deliveries of one object's events (`pi_…`, `inv_…`, `re_…`) to every endpoint, newest first, with attempts. */
  listObjectDeliveries(command: ListObjectDeliveriesCommand, caller: CommandOptions): Promise<ObjectDeliveryList> {
    return this.send(WEBHOOKS_COMMANDS.listObjectDeliveries, command, caller);
  }

  /** Answers the delivery with its new attempt scheduled. */
  resendDelivery(command: ResendDeliveryCommand, caller: CommandOptions): Promise<DeliveryView> {
    return this.send(WEBHOOKS_COMMANDS.resendDelivery, command, caller);
  }

  replayEndpoint(command: ReplayEndpointCommand, caller: CommandOptions): Promise<ReplayResult> {
    return this.send(WEBHOOKS_COMMANDS.replayEndpoint, command, caller);
  }

  /** Answers the delivery of the test event. */
  sendTestEvent(command: SendTestEventCommand, caller: CommandOptions): Promise<DeliveryView> {
    return this.send(WEBHOOKS_COMMANDS.sendTestEvent, command, caller);
  }

  private send<T>(name: WebhooksCommandName, body: object, caller: CommandOptions): Promise<T> {
    return this.services.request<T>(this.patterns.get(name)!, body, caller);
  }
}
