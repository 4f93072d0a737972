import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { IDEMPOTENCY_KEY_SCHEMA, type InvoiceResource, type SimulateInvoiceReply } from '@payments/contracts';
import { ApiError, type CommandOptions } from '@payments/platform';
import { Auth } from '../auth/auth.decorator';
import { Caller } from '../sessions-api/command-caller.decorator';
import type { AuthContext } from '../auth/auth-context';
import { Idempotent, IdempotencyKey } from '../idempotency/idempotent.decorator';
import { ApiErrors } from '../sessions-api/api-error.responses';
import { merchantSettings } from '../sessions-api/merchant-settings';
import { requireObjectId } from '../sessions-api/object-id';
import { INVOICE_RESPONSE, INVOICE_SIMULATE_RESPONSE } from '../sessions-api/response-schemas';
import { SessionsClient } from '../sessions-api/sessions.client';
import { apiValidationPipe } from '../validation/api-validation.pipe';
import { CreateInvoiceDto } from './create-invoice.dto';
import { SimulateInvoiceDto } from './simulate-invoice.dto';

const ID_PARAM = { name: 'id', schema: { type: 'string', pattern: '^inv_(test_)?[A-Za-z0-9_-]+$' } } as const;

@ApiTags('invoices')
@ApiBearerAuth()
@Controller('api/v1/invoices')
export class InvoicesController {
  constructor(private readonly sessions: SessionsClient) {}

  @Post()
  @HttpCode(201)
  @Idempotent()
  @ApiOperation({ operationId: 'createInvoice', summary: 'Create an invoice' })
  @ApiHeader({ name: 'Idempotency-Key', required: true, schema: IDEMPOTENCY_KEY_SCHEMA })
  @ApiResponse({ status: 201, schema: INVOICE_RESPONSE })
  @ApiErrors(400, 401, 403, 409, 429, 503)
  create(
    @Auth() auth: AuthContext,
    @IdempotencyKey() idempotencyKey: string,
    @Body(apiValidationPipe({ forbidUnknown: true })) params: CreateInvoiceDto,
    @Caller() caller: CommandOptions,
  ): Promise<InvoiceResource> {
    return this.sessions.createInvoice(
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
  @ApiOperation({ operationId: 'getInvoice', summary: 'Retrieve an invoice' })
  @ApiParam(ID_PARAM)
  @ApiResponse({ status: 200, schema: INVOICE_RESPONSE })
  @ApiErrors(401, 403, 404, 429, 503)
  get(@Auth() auth: AuthContext, @Param('id') id: string, @Caller() caller: CommandOptions): Promise<InvoiceResource> {
    return this.sessions.getInvoice(
      { merchant_id: auth.merchantId, environment: auth.environment, id: requireObjectId('invoice', id) },
      caller,
    );
  }

  @Post(':id/simulate')
  @HttpCode(200)
  @ApiOperation({ operationId: 'simulateInvoice', summary: 'Drive a test invoice to paid, failed or expired (test keys only)' })
  @ApiParam(ID_PARAM)
  @ApiResponse({ status: 200, schema: INVOICE_SIMULATE_RESPONSE })
  @ApiErrors(400, 401, 403, 404, 409, 429, 503)
  simulate(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Body(apiValidationPipe({ forbidUnknown: true })) body: SimulateInvoiceDto,
    @Caller() caller: CommandOptions,
  ): Promise<SimulateInvoiceReply> {
    if (auth.environment === 'live') {
      throw new ApiError('live_mode_not_allowed', 'Simulate works with test keys only; live invoices are paid at checkout.');
    }
    return this.sessions.simulateInvoice(
      { merchant_id: auth.merchantId, environment: auth.environment, id: requireObjectId('invoice', id), ...body },
      caller,
    );
  }
}
