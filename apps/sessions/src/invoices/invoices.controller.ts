import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { commandPattern, serveCommand, type RpcReply, type RpcRequest } from '@payments/platform';
import {
  SESSIONS_COMMANDS,
  SESSIONS_SERVICE,
  type CreateInvoiceCommand,
  type GetInvoiceCommand,
  type InvoiceResource,
  type SimulateInvoiceCommand,
  type SimulateInvoiceReply,
} from '@payments/contracts';
import { correlationOf } from '../commands/correlation';
import { mapSessionsError } from '../commands/sessions-error.mapper';
import { InvoiceHandlers } from './invoice.handlers';

/** Invoice commands over the command transport. */
@Controller()
export class InvoicesController {
  constructor(private readonly invoices: InvoiceHandlers) {}

  @MessagePattern(commandPattern(SESSIONS_SERVICE, SESSIONS_COMMANDS.createInvoice))
  create(@Payload() request: RpcRequest<CreateInvoiceCommand>): Promise<RpcReply<InvoiceResource>> {
    return serveCommand(request, (body) => this.invoices.create(body, correlationOf(request)), mapSessionsError);
  }

  @MessagePattern(commandPattern(SESSIONS_SERVICE, SESSIONS_COMMANDS.getInvoice))
  get(@Payload() request: RpcRequest<GetInvoiceCommand>): Promise<RpcReply<InvoiceResource>> {
    return serveCommand(request, (body) => this.invoices.get(body), mapSessionsError);
  }

  @MessagePattern(commandPattern(SESSIONS_SERVICE, SESSIONS_COMMANDS.simulateInvoice))
  simulate(@Payload() request: RpcRequest<SimulateInvoiceCommand>): Promise<RpcReply<SimulateInvoiceReply>> {
    return serveCommand(request, (body) => this.invoices.simulate(body, correlationOf(request), request.command_id), mapSessionsError);
  }
}
