import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { IDEMPOTENCY_KEY_SCHEMA, type PaymentIntentResource } from '@payments/contracts';
import { ApiError, type CommandOptions } from '@payments/platform';
import { Auth } from '../auth/auth.decorator';
import { Caller } from '../sessions-api/command-caller.decorator';
import type { AuthContext } from '../auth/auth-context';
import { Idempotent, IdempotencyKey } from '../idempotency/idempotent.decorator';
import { ApiErrors } from '../sessions-api/api-error.responses';
import { requireObjectId } from '../sessions-api/object-id';
import { merchantSettings } from '../sessions-api/merchant-settings';
import { PAYMENT_INTENT_RESPONSE } from '../sessions-api/response-schemas';
import { SessionsClient } from '../sessions-api/sessions.client';
import { apiValidationPipe } from '../validation/api-validation.pipe';
import { CreatePaymentIntentDto } from './create-payment-intent.dto';
import { SimulatePaymentIntentDto } from './simulate-payment-intent.dto';

const ID_PARAM = { name: 'id', schema: { type: 'string', pattern: '^pi_(live|test)_[A-Za-z0-9_-]+$' } } as const;

@ApiTags('payment intents')
@ApiBearerAuth()
@Controller('api/v1/payment-intents')
export class PaymentIntentsController {
  constructor(private readonly sessions: SessionsClient) {}

  @Post()
  @HttpCode(201)
  @Idempotent()
  @ApiOperation({ operationId: 'createPaymentIntent', summary: 'Create a payment intent' })
  @ApiHeader({ name: 'Idempotency-Key', required: true, schema: IDEMPOTENCY_KEY_SCHEMA })
  @ApiResponse({ status: 201, schema: PAYMENT_INTENT_RESPONSE })
  @ApiErrors(400, 401, 403, 409, 429, 503)
  create(
    @Auth() auth: AuthContext,
    @IdempotencyKey() idempotencyKey: string,
    @Body(apiValidationPipe({ forbidUnknown: false })) params: CreatePaymentIntentDto,
    @Caller() caller: CommandOptions,
  ): Promise<PaymentIntentResource> {
    return this.sessions.createPaymentIntent(
      {
        merchant_id: auth.merchantId,
        environment: auth.environment,
        idempotency_key: idempotencyKey,
        merchant: merchantSettings(auth),
        params: { ...params },
      },
      caller,
    );
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getPaymentIntent', summary: 'Retrieve a payment intent' })
  @ApiParam(ID_PARAM)
  @ApiResponse({ status: 200, schema: PAYMENT_INTENT_RESPONSE })
  @ApiErrors(401, 403, 404, 429, 503)
  get(@Auth() auth: AuthContext, @Param('id') id: string, @Caller() caller: CommandOptions): Promise<PaymentIntentResource> {
    return this.sessions.getPaymentIntent(
      { merchant_id: auth.merchantId, environment: auth.environment, id: requireObjectId('payment_intent', id) },
      caller,
    );
  }

  @Post(':id/simulate')
  @HttpCode(200)
  @ApiOperation({ operationId: 'simulatePaymentIntent', summary: 'Drive a test payment intent to a result (test keys only)' })
  @ApiParam(ID_PARAM)
  @ApiResponse({ status: 200, schema: PAYMENT_INTENT_RESPONSE })
  @ApiErrors(400, 401, 403, 404, 409, 429, 503)
  simulate(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Body(apiValidationPipe({ forbidUnknown: true })) body: SimulatePaymentIntentDto,
    @Caller() caller: CommandOptions,
  ): Promise<PaymentIntentResource> {
    if (auth.environment === 'live') {
      throw new ApiError('live_mode_not_allowed', 'Simulate works with test keys only; live payments are made at checkout.');
    }
    return this.sessions.simulatePaymentIntent(
      { merchant_id: auth.merchantId, environment: auth.environment, id: requireObjectId('payment_intent', id), ...body },
      caller,
    );
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({ operationId: 'cancelPaymentIntent', summary: 'Cancel a payment intent that is not paid' })
  @ApiParam(ID_PARAM)
  @ApiResponse({ status: 200, schema: PAYMENT_INTENT_RESPONSE })
  @ApiErrors(401, 403, 404, 409, 429, 503)
  cancel(@Auth() auth: AuthContext, @Param('id') id: string, @Caller() caller: CommandOptions): Promise<PaymentIntentResource> {
    return this.sessions.cancelPaymentIntent(
      { merchant_id: auth.merchantId, environment: auth.environment, id: requireObjectId('payment_intent', id) },
      caller,
    );
  }
}
