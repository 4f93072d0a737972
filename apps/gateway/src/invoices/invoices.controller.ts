import { Body, Get, Param, Post } from '@nestjs/common';
import type { InvoiceResource, SimulateInvoiceReply } from '@payments/contracts';
import type { CommandOptions } from '@payments/platform';
import { Auth } from '../auth/auth.decorator';
import type { AuthContext } from '../auth/auth-context';
import { Caller } from '../command-clients/command-caller.decorator';
import { INVOICE_RESPONSE, INVOICE_SIMULATE_RESPONSE } from '../session-routes/response-schemas';
import { createCommand, CreatedBy, objectCommand, SessionResource, SessionRoute, simulateCommand, TestKeysOnly, type Creator } from '../session-routes/session-routes';
import { SessionsClient } from '../sessions-client/sessions.client';
import { apiValidationPipe } from '../validation/api-validation.pipe';
import { CreateInvoiceDto } from './create-invoice.dto';
import { SimulateInvoiceDto } from './simulate-invoice.dto';

const ID_PARAM = { name: 'id', schema: { type: 'string', pattern: '^inv_(test_)?[A-Za-z0-9_-]+$' } } as const;

@SessionResource('invoices', 'invoices')
export class InvoicesController {
  constructor(private readonly sessions: SessionsClient) {}

  @Post()
  @SessionRoute({ operationId: 'createInvoice', summary: 'Create an invoice', status: 201, response: INVOICE_RESPONSE, errors: [400, 401, 403, 409, 429, 503], idempotent: true })
  create(@CreatedBy() creator: Creator, @Body(apiValidationPipe({ forbidUnknown: true })) params: CreateInvoiceDto, @Caller() caller: CommandOptions): Promise<InvoiceResource> {
    return this.sessions.createInvoice(createCommand(creator, params), caller);
  }

  @Get(':id')
  @SessionRoute({ operationId: 'getInvoice', summary: 'Retrieve an invoice', status: 200, response: INVOICE_RESPONSE, idParam: ID_PARAM, errors: [401, 403, 404, 429, 503] })
  get(@Auth() auth: AuthContext, @Param('id') id: string, @Caller() caller: CommandOptions): Promise<InvoiceResource> {
    return this.sessions.getInvoice(objectCommand(auth, 'invoice', id), caller);
  }

  @Post(':id/simulate')
  @TestKeysOnly('live invoices are paid')
  @SessionRoute({
    operationId: 'simulateInvoice',
    summary: 'Drive a test invoice to paid, failed or expired (test keys only)',
    status: 200,
    response: INVOICE_SIMULATE_RESPONSE,
    idParam: ID_PARAM,
    errors: [400, 401, 403, 404, 409, 429, 503],
  })
  simulate(@Auth() auth: AuthContext, @Param('id') id: string, @Body(apiValidationPipe({ forbidUnknown: true })) body: SimulateInvoiceDto, @Caller() caller: CommandOptions): Promise<SimulateInvoiceReply> {
    return this.sessions.simulateInvoice(simulateCommand(auth, 'invoice', id, body), caller);
  }
}
