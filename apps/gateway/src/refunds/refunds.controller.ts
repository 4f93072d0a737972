import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  IDEMPOTENCY_KEY_SCHEMA,
  REFUNDS_COMMANDS,
  type ListResource,
  type PaymentResource,
  type RefundResource,
} from '@payments/contracts';
import { ApiError, type CommandOptions } from '@payments/platform';
import { Auth } from '../auth/auth.decorator';
import type { AuthContext } from '../auth/auth-context';
import { Caller } from '../command-clients/command-caller.decorator';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { ApiErrors } from '../session-routes/api-error.responses';
import { PAYMENT_LIST_RESPONSE, PAYMENT_RESPONSE, REFUND_LIST_RESPONSE, REFUND_RESPONSE } from '../session-routes/response-schemas';
import { CreatedBy, scopeOf, type Creator } from '../session-routes/session-routes';
import { apiValidationPipe } from '../validation/api-validation.pipe';
import { OptionalBodyPipe } from '../validation/optional-body.pipe';
import { CreateRefundDto } from './create-refund.dto';
import { ListPaymentsQuery, ListRefundsQuery, PAYMENT_ID, REFUND_ID } from './list-refunds.query';
import { RefundsClient } from './refunds.client';

const PAYMENT_ID_PARAM = { name: 'id', schema: { type: 'string', pattern: PAYMENT_ID.source } } as const;
const REFUND_ID_PARAM = { name: 'id', schema: { type: 'string', pattern: REFUND_ID.source } } as const;

/** An id that cannot name one of these objects is a 404, as an unknown one is (nothing is asked of the service). */
function requireId(id: string, pattern: RegExp, what: string): string {
  if (!pattern.test(id)) throw new ApiError('not_found', `No such ${what}.`, 'id');
  return id;
}

/** Payments (made when an intent or invoice is paid) and their refunds, in the key's environment. */
@ApiTags('refunds')
@ApiBearerAuth()
@Controller('api/v1')
export class RefundsController {
  constructor(private readonly refunds: RefundsClient) {}

  @Post('payments/:id/refunds')
  @HttpCode(201)
  @Idempotent()
  @ApiOperation({
    operationId: 'createRefund',
    summary: 'Refund all or part of a payment',
    description:
      'Test-mode refunds and refunds of service-balance payments (`togo`) complete at once; live `lahza` refunds are `pending` until the provider settles them. ' +
      'Refunds of live `crypto` payments are refused with 409 `invalid_state` ("Refunds of live crypto payments are not available yet."): returning stablecoins ' +
      'needs an outbound transfer, which the service does not make (it holds no private key). Settle them with the customer directly until it does.',
  })
  @ApiHeader({ name: 'Idempotency-Key', required: true, schema: IDEMPOTENCY_KEY_SCHEMA })
  @ApiParam(PAYMENT_ID_PARAM)
  @ApiBody({ type: CreateRefundDto, required: false })
  @ApiResponse({ status: 201, schema: REFUND_RESPONSE })
  @ApiErrors(400, 401, 403, 404, 409, 429, 503)
  create(
    @CreatedBy() creator: Creator,
    @Param('id') id: string,
    // No body at all is a refund of what remains, as `{}` is.
    @Body(new OptionalBodyPipe(apiValidationPipe({ forbidUnknown: true }))) params: CreateRefundDto,
    @Caller() caller: CommandOptions,
  ): Promise<RefundResource> {
    const command = { ...scopeOf(creator.auth), payment_id: requireId(id, PAYMENT_ID, 'payment'), idempotency_key: creator.idempotencyKey, params: { ...params } };
    return this.refunds.send(REFUNDS_COMMANDS.createRefund, command, caller);
  }

  @Get('payments/:id')
  @ApiOperation({ operationId: 'getPayment', summary: 'Retrieve a payment with its refunds' })
  @ApiParam(PAYMENT_ID_PARAM)
  @ApiResponse({ status: 200, schema: PAYMENT_RESPONSE })
  @ApiErrors(401, 403, 404, 429, 503)
  getPayment(@Auth() auth: AuthContext, @Param('id') id: string, @Caller() caller: CommandOptions): Promise<PaymentResource> {
    return this.refunds.send(REFUNDS_COMMANDS.getPayment, { ...scopeOf(auth), id: requireId(id, PAYMENT_ID, 'payment') }, caller);
  }

  @Get('payments')
  @ApiOperation({ operationId: 'listPayments', summary: 'Payments, newest first' })
  @ApiResponse({ status: 200, schema: PAYMENT_LIST_RESPONSE })
  @ApiErrors(400, 401, 403, 429, 503)
  listPayments(
    @Auth() auth: AuthContext,
    @Query(apiValidationPipe({ forbidUnknown: true })) query: ListPaymentsQuery,
    @Caller() caller: CommandOptions,
  ): Promise<ListResource<PaymentResource>> {
    const command = { ...scopeOf(auth), limit: query.limit ?? 10, ...(query.starting_after ? { starting_after: query.starting_after } : {}) };
    return this.refunds.send(REFUNDS_COMMANDS.listPayments, command, caller);
  }

  @Get('refunds/:id')
  @ApiOperation({ operationId: 'getRefund', summary: 'Retrieve a refund' })
  @ApiParam(REFUND_ID_PARAM)
  @ApiResponse({ status: 200, schema: REFUND_RESPONSE })
  @ApiErrors(401, 403, 404, 429, 503)
  getRefund(@Auth() auth: AuthContext, @Param('id') id: string, @Caller() caller: CommandOptions): Promise<RefundResource> {
    return this.refunds.send(REFUNDS_COMMANDS.getRefund, { ...scopeOf(auth), id: requireId(id, REFUND_ID, 'refund') }, caller);
  }

  @Get('refunds')
  @ApiOperation({ operationId: 'listRefunds', summary: 'Refunds, newest first, optionally of one payment' })
  @ApiResponse({ status: 200, schema: REFUND_LIST_RESPONSE })
  @ApiErrors(400, 401, 403, 429, 503)
  listRefunds(
    @Auth() auth: AuthContext,
    @Query(apiValidationPipe({ forbidUnknown: true })) query: ListRefundsQuery,
    @Caller() caller: CommandOptions,
  ): Promise<ListResource<RefundResource>> {
    const command = {
      ...scopeOf(auth),
      limit: query.limit ?? 10,
      ...(query.starting_after ? { starting_after: query.starting_after } : {}),
      ...(query.payment_id ? { payment_id: query.payment_id } : {}),
    };
    return this.refunds.send(REFUNDS_COMMANDS.listRefunds, command, caller);
  }
}
