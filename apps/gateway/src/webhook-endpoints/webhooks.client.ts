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
import { commandTopic, ServiceClient } from '@payments/platform';

/** Typed commands to the webhook-dispatcher over Kafka request/reply (delivery visibility). */
@Injectable()
export class WebhooksClient {
  private readonly topics = new Map<WebhooksCommandName, string>(
    Object.values(WEBHOOKS_COMMANDS).map((name) => [name, commandTopic(WEBHOOKS_SERVICE, name)]),
  );

  constructor(private readonly services: ServiceClient) {}

  listDeliveries(command: ListDeliveriesCommand, correlationId: string): Promise<DeliveryList> {
    return this.send(WEBHOOKS_COMMANDS.listDeliveries, command, correlationId);
  }

  /** Answers the delivery with its new attempt scheduled. */
  resendDelivery(command: ResendDeliveryCommand, correlationId: string): Promise<DeliveryView> {
    return this.send(WEBHOOKS_COMMANDS.resendDelivery, command, correlationId);
  }

  replayEndpoint(command: ReplayEndpointCommand, correlationId: string): Promise<ReplayResult> {
    return this.send(WEBHOOKS_COMMANDS.replayEndpoint, command, correlationId);
  }

  /** Answers the delivery of the test event. */
  sendTestEvent(command: SendTestEventCommand, correlationId: string): Promise<DeliveryView> {
    return this.send(WEBHOOKS_COMMANDS.sendTestEvent, command, correlationId);
  }

  private send<T>(name: WebhooksCommandName, body: object, correlationId: string): Promise<T> {
    return this.services.request<T>(this.topics.get(name)!, body, correlationId);
  }
}
