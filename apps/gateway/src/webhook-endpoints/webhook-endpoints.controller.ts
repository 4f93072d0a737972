import { IDEMPOTENCY_KEY_SCHEMA } from '@payments/contracts';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Auth } from '../auth/auth.decorator';
import type { AuthContext } from '../auth/auth-context';
import { ApiErrors } from '../session-routes/api-error.responses';
import { apiValidationPipe } from '../validation/api-validation.pipe';
import { CreateWebhookEndpointDto, UpdateWebhookEndpointDto } from './create-webhook-endpoint.dto';
import { requireEndpointId, scopeOf } from './endpoint-scope';
import { NoBody, NoBodyFields } from '../validation/no-body';
import { OptionalBodyPipe } from '../validation/optional-body.pipe';
import { OptionalIdempotencyInterceptor } from './optional-idempotency.interceptor';
import { RollWebhookSecretDto } from './roll-webhook-secret.dto';
import type { WebhookEndpointResource, WebhookEndpointWithSecret } from './webhook-endpoint.model';
import {
  DELETED_WEBHOOK_ENDPOINT_SCHEMA,
  WEBHOOK_ENDPOINT_LIST_SCHEMA,
  WEBHOOK_ENDPOINT_SCHEMA,
  WEBHOOK_ENDPOINT_WITH_SECRET_SCHEMA,
} from './webhook-endpoint.schemas';
import { WebhookEndpointsService } from './webhook-endpoints.service';

export const ENDPOINT_ID_PARAM = { name: 'id', schema: { type: 'string', pattern: '^we_[A-Za-z0-9]{24}$' } } as const;
export const OPTIONAL_IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  required: false,
  description: 'optional: a retry with the same key gets the first answer instead of acting twice',
  schema: IDEMPOTENCY_KEY_SCHEMA,
} as const;

@ApiTags('webhook endpoints')
@ApiBearerAuth()
@Controller('api/v1/webhook-endpoints')
export class WebhookEndpointsController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Post()
  @HttpCode(201)
  @UseInterceptors(OptionalIdempotencyInterceptor)
  @ApiOperation({
    operationId: 'createWebhookEndpoint',
    summary: 'Add a webhook endpoint (its signing secret is in this answer only)',
  })
  @ApiHeader(OPTIONAL_IDEMPOTENCY_KEY)
  @ApiResponse({ status: 201, schema: WEBHOOK_ENDPOINT_WITH_SECRET_SCHEMA })
  @ApiErrors(400, 401, 403, 409, 429)
  create(
    @Auth() auth: AuthContext,
    @Body(apiValidationPipe({ forbidUnknown: true })) body: CreateWebhookEndpointDto,
    @Req() request: FastifyRequest,
  ): Promise<WebhookEndpointWithSecret> {
    return this.endpoints.create(
      scopeOf(auth),
      { url: body.url, events: body.events ?? null, idempotencyKey: request.idempotencyKey ?? null },
      String(request.id),
    );
  }

  @Get()
  @ApiOperation({ operationId: 'listWebhookEndpoints', summary: "The key's environment's webhook endpoints, oldest first" })
  @ApiResponse({ status: 200, schema: WEBHOOK_ENDPOINT_LIST_SCHEMA })
  @ApiErrors(401, 403, 429)
  list(@Auth() auth: AuthContext): Promise<{ object: 'list'; data: WebhookEndpointResource[]; has_more: false }> {
    return this.endpoints.list(scopeOf(auth));
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getWebhookEndpoint', summary: 'Retrieve a webhook endpoint (without its secret)' })
  @ApiParam(ENDPOINT_ID_PARAM)
  @ApiResponse({ status: 200, schema: WEBHOOK_ENDPOINT_SCHEMA })
  @ApiErrors(401, 403, 404, 429)
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<WebhookEndpointResource> {
    return this.endpoints.get(scopeOf(auth), requireEndpointId(id));
  }

  @Patch(':id')
  @HttpCode(200)
  @UseInterceptors(OptionalIdempotencyInterceptor)
  @ApiOperation({
    operationId: 'updateWebhookEndpoint',
    summary: 'Change the address or the event types; the secret, status and deliveries stay (what is still due goes to the new address)',
  })
  @ApiParam(ENDPOINT_ID_PARAM)
  @ApiHeader(OPTIONAL_IDEMPOTENCY_KEY)
  @ApiResponse({ status: 200, schema: WEBHOOK_ENDPOINT_SCHEMA })
  @ApiErrors(400, 401, 403, 404, 409, 429)
  update(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Body(apiValidationPipe({ forbidUnknown: true })) body: UpdateWebhookEndpointDto,
    @Req() request: FastifyRequest,
  ): Promise<WebhookEndpointResource> {
    return this.endpoints.update(scopeOf(auth), requireEndpointId(id), { url: body.url, events: body.events }, String(request.id));
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({ operationId: 'deleteWebhookEndpoint', summary: 'Delete a webhook endpoint; nothing more is sent to it' })
  @ApiParam(ENDPOINT_ID_PARAM)
  @ApiResponse({ status: 200, schema: DELETED_WEBHOOK_ENDPOINT_SCHEMA })
  @ApiErrors(401, 403, 404, 429)
  delete(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
  ): Promise<{ id: string; object: 'webhook_endpoint'; deleted: true }> {
    return this.endpoints.delete(scopeOf(auth), requireEndpointId(id), String(request.id));
  }

  @Post(':id/roll-secret')
  @HttpCode(200)
  @UseInterceptors(OptionalIdempotencyInterceptor)
  @ApiOperation({
    operationId: 'rollWebhookEndpointSecret',
    summary: 'Replace the signing secret (shown in this answer only); the old one also signs for 24 h unless told otherwise',
  })
  @ApiParam(ENDPOINT_ID_PARAM)
  @ApiHeader(OPTIONAL_IDEMPOTENCY_KEY)
  @ApiBody({ type: RollWebhookSecretDto, required: false })
  @ApiResponse({ status: 200, schema: WEBHOOK_ENDPOINT_WITH_SECRET_SCHEMA })
  @ApiErrors(400, 401, 403, 404, 409, 429)
  rollSecret(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Body(new OptionalBodyPipe(apiValidationPipe({ forbidUnknown: true }))) body: RollWebhookSecretDto,
    @Req() request: FastifyRequest,
  ): Promise<WebhookEndpointWithSecret> {
    return this.endpoints.rollSecret(scopeOf(auth), requireEndpointId(id), body.expires_in_hours, String(request.id), request.idempotencyKey);
  }

  @Post(':id/enable')
  @HttpCode(200)
  @UseInterceptors(OptionalIdempotencyInterceptor)
  @ApiOperation({
    operationId: 'enableWebhookEndpoint',
    summary: 'Enable a disabled endpoint again; what failed while it was disabled is sent again',
  })
  @ApiParam(ENDPOINT_ID_PARAM)
  @ApiHeader(OPTIONAL_IDEMPOTENCY_KEY)
  @ApiResponse({ status: 200, schema: WEBHOOK_ENDPOINT_SCHEMA })
  @ApiErrors(401, 403, 404, 409, 429)
  enable(@Auth() auth: AuthContext, @Param('id') id: string, @NoBodyFields() _body: NoBody, @Req() request: FastifyRequest): Promise<WebhookEndpointResource> {
    return this.endpoints.enable(scopeOf(auth), requireEndpointId(id), String(request.id), request.idempotencyKey);
  }
}
