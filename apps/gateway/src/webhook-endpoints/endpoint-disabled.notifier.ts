import { Logger } from '@nestjs/common';
import type { EventEnvelope } from '@payments/events';
import type { EntityManager } from 'typeorm';
import { endpointDisabledMail } from '../mail/endpoint-disabled.mail';
import type { MailOutbox } from '../mail/mail-outbox';
import { InvalidMail } from '../mail/outgoing-mail';
import type { MailRecipients } from '../mail/mail-recipients';
import type { WebhookEndpointsService } from './webhook-endpoints.service';

/**
 * The gateway's side of the dispatcher's events: an endpoint it disabled shows as disabled, and the merchant's
 * owners get an e-mail saying so, written in the same transaction as the consumer's inbox row, so one
 * disabling is one message however often the event arrives. A disabling the merchant's later change overtook
 * (stale) changes nothing and tells nobody.
 */
export class EndpointDisabledNotifier {
  private readonly logger = new Logger('EndpointDisabledNotifier');

  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly outbox: MailOutbox,
    private readonly recipients: MailRecipients,
    private readonly publicBaseUrl: string,
  ) {}

  async handle(envelope: EventEnvelope, manager: EntityManager): Promise<void> {
    const applied = await this.endpoints.applyDispatcherEvent(envelope, manager);
    if (applied.outcome !== 'applied') return;
    const { endpoint } = applied;
    const disabled = { id: endpoint.id, url: endpoint.url, environment: endpoint.environment, reason: endpoint.disabledReason!, disabledAt: endpoint.disabledAt! };
    const addresses = await this.recipients.ownerAddressesOf(endpoint.merchantId, manager);
    if (addresses.length === 0) this.logger.warn({ endpoint: endpoint.id, merchant: endpoint.merchantId }, 'an endpoint was disabled and its merchant has no address to tell');
    for (const to of addresses) {
      try {
        await this.outbox.enqueue(endpointDisabledMail(to, disabled, this.publicBaseUrl), manager);
      } catch (error) {
        // An address the outbox cannot send to must not hold back the endpoint's status (nor dead-letter the event).
        if (!(error instanceof InvalidMail)) throw error;
        this.logger.error({ err: error, endpoint: endpoint.id, merchant: endpoint.merchantId }, 'the merchant\'s address cannot be mailed; the endpoint-disabled notice is not sent');
      }
    }
  }
}
