import { Body, Controller, Get, HttpCode, Param, Post, Query, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { DeliveryList, DeliveryView, EndpointScope as DispatcherScope, ReplayResult } from '@payments/contracts';
import { ApiError, type CommandOptions } from '@payments/platform';
import { Auth } from '../auth/auth.decorator';
import { Caller } from '../command-clients/command-caller.decorator';
import type { AuthContext } from '../auth/auth-context';
import { ApiErrors } from '../session-routes/api-error.responses';
import { apiValidationPipe } from '../validation/api-validation.pipe';
import { NoBody, NoBodyFields } from '../validation/no-body';
import { requireEndpointId, scopeOf } from './endpoint-scope';
import { DELIVERY_ID, ListDeliveriesQuery } from './list-deliveries.query';
import { OptionalIdempotencyInterceptor } from './optional-idempotency.interceptor';
import { ReplayWebhookEventsDto } from './replay-webhook-events.dto';
import { replayWindow } from './replay-window';
import { WEBHOOK_DELIVERY_LIST_SCHEMA, WEBHOOK_DELIVERY_SCHEMA, WEBHOOK_REPLAY_SCHEMA } from './webhook-endpoint.schemas';
import { ENDPOINT_ID_PARAM, OPTIONAL_IDEMPOTENCY_KEY } from './webhook-endpoints.controller';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhooksClient } from './webhooks.client';

const DELIVERY_ID_PARAM = { name: 'delivery_id', schema: { type: 'string', pattern: DELIVERY_ID.source } } as const;

/**
 * Deliveries of one endpoint, kept by the webhook-dispatcher: the gateway checks the endpoint is the
 * caller's (404 otherwise, nothing is sent), then asks the dispatcher over Kafka.
 */
@ApiTags('webhook endpoints')
@ApiBearerAuth()
@Controller('api/v1/webhook-endpoints/:id')
export class WebhookDeliveriesController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly webhooks: WebhooksClient,
  ) {}

  @Get('deliveries')
  @ApiOperation({ operationId: 'listWebhookDeliveries', summary: "An endpoint's deliveries with their attempts, newest first" })
  @ApiParam(ENDPOINT_ID_PARAM)
  @ApiResponse({ status: 200, schema: WEBHOOK_DELIVERY_LIST_SCHEMA })
  @ApiErrors(400, 401, 403, 404, 429, 503)
  async list(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Query(apiValidationPipe({ forbidUnknown: true })) query: ListDeliveriesQuery,
    @Caller() caller: CommandOptions,
  ): Promise<DeliveryList> {
    const scope = await this.ownEndpoint(auth, id);
    return this.webhooks.listDeliveries({ ...scope, limit: query.limit ?? 50, ...(query.starting_after ? { starting_after: query.starting_after } : {}) }, caller);
  }

  @Post('deliveries/:delivery_id/resend')
  @HttpCode(200)
  @UseInterceptors(OptionalIdempotencyInterceptor)
  @ApiOperation({ operationId: 'resendWebhookDelivery', summary: 'Send one delivered (or failed) event again' })
  @ApiParam(ENDPOINT_ID_PARAM)
  @ApiParam(DELIVERY_ID_PARAM)
  @ApiHeader(OPTIONAL_IDEMPOTENCY_KEY)
  @ApiResponse({ status: 200, schema: WEBHOOK_DELIVERY_SCHEMA })
  @ApiErrors(401, 403, 404, 409, 429, 503)
  async resend(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Param('delivery_id') deliveryId: string,
    @NoBodyFields() _body: NoBody,
    @Caller() caller: CommandOptions,
  ): Promise<DeliveryView> {
    if (!DELIVERY_ID.test(deliveryId)) throw new ApiError('not_found', `No webhook delivery ${deliveryId.slice(0, 80)}.`, 'delivery_id');
    const scope = await this.ownEndpoint(auth, id);
    return this.webhooks.resendDelivery({ ...scope, delivery_id: deliveryId }, caller);
  }

  @Post('replay')
  @HttpCode(200)
  @UseInterceptors(OptionalIdempotencyInterceptor)
  @ApiOperation({ operationId: 'replayWebhookEvents', summary: 'Send every event of a time range (last 30 days) again' })
  @ApiParam(ENDPOINT_ID_PARAM)
  @ApiHeader(OPTIONAL_IDEMPOTENCY_KEY)
  @ApiResponse({ status: 200, schema: WEBHOOK_REPLAY_SCHEMA })
  @ApiErrors(400, 401, 403, 404, 409, 429, 503)
  async replay(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Body(apiValidationPipe({ forbidUnknown: true })) body: ReplayWebhookEventsDto,
    @Caller() caller: CommandOptions,
  ): Promise<ReplayResult> {
    const window = replayWindow(body.from, body.to);
    const scope = await this.ownEndpoint(auth, id);
    return this.webhooks.replayEndpoint({ ...scope, ...window }, caller);
  }

  @Post('test')
  @HttpCode(200)
  @UseInterceptors(OptionalIdempotencyInterceptor)
  @ApiOperation({ operationId: 'sendWebhookTestEvent', summary: 'Send a signed test event to the endpoint' })
  @ApiParam(ENDPOINT_ID_PARAM)
  @ApiHeader(OPTIONAL_IDEMPOTENCY_KEY)
  @ApiResponse({ status: 200, schema: WEBHOOK_DELIVERY_SCHEMA })
  @ApiErrors(401, 403, 404, 409, 429, 503)
  async test(@Auth() auth: AuthContext, @Param('id') id: string, @NoBodyFields() _body: NoBody, @Caller() caller: CommandOptions): Promise<DeliveryView> {
    const scope = await this.ownEndpoint(auth, id);
    return this.webhooks.sendTestEvent(scope, caller);
  }

  /** The dispatcher's scope of an endpoint the caller owns; 404 before anything is sent otherwise. */
  private async ownEndpoint(auth: AuthContext, id: string): Promise<DispatcherScope> {
    const endpoint = await this.endpoints.require(scopeOf(auth), requireEndpointId(id));
    return { merchant_id: endpoint.merchantId, environment: endpoint.environment, endpoint_id: endpoint.id };
  }
}
