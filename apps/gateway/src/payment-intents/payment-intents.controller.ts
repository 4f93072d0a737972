import { Body, Get, Param, Post } from '@nestjs/common';
import type { PaymentIntentResource } from '@payments/contracts';
import type { CommandOptions } from '@payments/platform';
import { Auth } from '../auth/auth.decorator';
import type { AuthContext } from '../auth/auth-context';
import { Caller } from '../command-clients/command-caller.decorator';
import { PAYMENT_INTENT_RESPONSE } from '../session-routes/response-schemas';
import { createCommand, CreatedBy, objectCommand, SessionResource, SessionRoute, simulateCommand, TestKeysOnly, type Creator } from '../session-routes/session-routes';
import { SessionsClient } from '../sessions-client/sessions.client';
import { apiValidationPipe } from '../validation/api-validation.pipe';
import { NoBody, NoBodyFields } from '../validation/no-body';
import { CreatePaymentIntentDto } from './create-payment-intent.dto';
import { SimulatePaymentIntentDto } from './simulate-payment-intent.dto';

const ID_PARAM = { name: 'id', schema: { type: 'string', pattern: '^pi_(live|test)_[A-Za-z0-9_-]+$' } } as const;
const ANSWER = { response: PAYMENT_INTENT_RESPONSE, idParam: ID_PARAM } as const;

@SessionResource('payment-intents', 'payment intents')
export class PaymentIntentsController {
  constructor(private readonly sessions: SessionsClient) {}

  @Post()
  @SessionRoute({ operationId: 'createPaymentIntent', summary: 'Create a payment intent', status: 201, response: PAYMENT_INTENT_RESPONSE, errors: [400, 401, 403, 409, 429, 503], idempotent: true })
  create(
    @CreatedBy() creator: Creator,
    // Top-level fields the DTO does not declare are dropped here, as payment-intent create must; invoices refuse them.
    @Body(apiValidationPipe({ forbidUnknown: false })) params: CreatePaymentIntentDto,
    @Caller() caller: CommandOptions,
  ): Promise<PaymentIntentResource> {
    return this.sessions.createPaymentIntent(createCommand(creator, params), caller);
  }

  @Get(':id')
  @SessionRoute({ operationId: 'getPaymentIntent', summary: 'Retrieve a payment intent', status: 200, ...ANSWER, errors: [401, 403, 404, 429, 503] })
  get(@Auth() auth: AuthContext, @Param('id') id: string, @Caller() caller: CommandOptions): Promise<PaymentIntentResource> {
    return this.sessions.getPaymentIntent(objectCommand(auth, 'payment_intent', id), caller);
  }

  @Post(':id/simulate')
  @TestKeysOnly('live payments are made')
  @SessionRoute({ operationId: 'simulatePaymentIntent', summary: 'Drive a test payment intent to a result (test keys only)', status: 200, ...ANSWER, errors: [400, 401, 403, 404, 409, 429, 503] })
  simulate(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Body(apiValidationPipe({ forbidUnknown: true })) body: SimulatePaymentIntentDto,
    @Caller() caller: CommandOptions,
  ): Promise<PaymentIntentResource> {
    return this.sessions.simulatePaymentIntent(simulateCommand(auth, 'payment_intent', id, body), caller);
  }

  @Post(':id/cancel')
  @SessionRoute({ operationId: 'cancelPaymentIntent', summary: 'Cancel a payment intent that is not paid', status: 200, ...ANSWER, errors: [401, 403, 404, 409, 429, 503] })
  cancel(@Auth() auth: AuthContext, @Param('id') id: string, @NoBodyFields() _body: NoBody, @Caller() caller: CommandOptions): Promise<PaymentIntentResource> {
    return this.sessions.cancelPaymentIntent(objectCommand(auth, 'payment_intent', id), caller);
  }
}
