import { Controller, Headers, HttpCode, Logger, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { REFUNDS_COMMANDS } from '@payments/contracts';
import { ApiError, RAW_BODY_PREFIX } from '@payments/platform';
import type { FastifyRequest } from 'fastify';
import { RefundsClient } from '../refunds/refunds.client';
import { SessionsClient } from '../sessions-client/sessions.client';

/**
 * Lahza's notifications (DESIGN §7), public: the raw body and its `x-lahza-signature` go to sessions, which checks
 * the signature in constant time with the environment's key and then asks Lahza itself (a notification alone is
 * never trusted). A forged one is a 400 and changes nothing. Sessions answers a signed one before it asks Lahza (a
 * refund's after a short wait, to name the refunds settled), so a slow Lahza never turns notifications into 503s
 * and resends.
 */
@ApiExcludeController()
@Controller(RAW_BODY_PREFIX.slice(1, -1))
export class ProviderNotificationsController {
  private readonly logger = new Logger('ProviderNotifications');

  constructor(
    private readonly sessions: SessionsClient,
    private readonly refunds: RefundsClient,
  ) {}

  @Post('lahza/notifications')
  @HttpCode(200)
  async lahza(@Headers('x-lahza-signature') signature: string | undefined, @Req() request: FastifyRequest): Promise<{ received: true }> {
    if (!request.rawBody) throw new ApiError('invalid_request', 'A notification is a JSON body (Content-Type: application/json).');
    const { accepted, refunds } = await this.sessions.providerNotification(request.rawBody, signature ?? null, { correlationId: String(request.id) });
    if (!accepted) throw new ApiError('invalid_request', 'The notification signature does not verify.', 'x-lahza-signature');
    // Refunds the provider settled meanwhile: the refunds service takes their outcome now (its background check
    // would otherwise learn it only at its next round, minutes away for a refund pending a while).
    for (const refund of refunds ?? []) {
      const command = { merchant_id: refund.merchant_id, environment: refund.environment, refund_id: refund.refund_id };
      await this.refunds.send(REFUNDS_COMMANDS.providerRefundSettled, command, { correlationId: String(request.id) }).catch((error: unknown) => {
        this.logger.warn({ err: error, refund: refund.refund_id }, 'refunds service not told of a settled provider refund; its background check will learn it');
      });
    }
    return { received: true };
  }
}
