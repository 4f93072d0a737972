import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { SESSIONS_COMMANDS, SESSIONS_SERVICE, type SessionsCommandMap, type SessionsCommandName } from '@payments/contracts';
import { CommandContext, commandPattern, serveCommand, type RpcReply, type RpcRequest } from '@payments/platform';
import { InvoiceHandlers } from '../invoices/invoice.handlers';
import { PaymentIntentHandlers } from '../payment-intents/payment-intent.handlers';
import { CheckoutHandlers } from '../checkout/checkout.handlers';
import { PaymentHandlers } from '../payments/payment.handlers';
import { SessionQueries } from '../queries/session-queries';
import { ProviderPaymentHandlers } from '../provider-payments/provider-payment.handlers';
import { WalletHandlers } from '../wallets/wallet.handlers';
import { correlationOf } from './correlation';
import { mapSessionsError } from './sessions-error.mapper';

/** Who sent a command: its correlation id and its command id (a command sent again is acted on once). */
interface Sender {
  correlationId: string;
  commandId: string;
}

type Routes = { [N in SessionsCommandName]: (body: unknown, sender: Sender) => Promise<SessionsCommandMap[N]['reply']> };

const PREFIX = commandPattern(SESSIONS_SERVICE, '');

/**
 * Every sessions command over the command transport, routed by name to its handler (which checks the body
 * against the command's schema). One @MessagePattern listens for all of them.
 */
@Controller()
export class SessionsController {
  private readonly routes: Routes;

  constructor(
    intents: PaymentIntentHandlers,
    invoices: InvoiceHandlers,
    payments: PaymentHandlers,
    checkout: CheckoutHandlers,
    providerPayments: ProviderPaymentHandlers,
    queries: SessionQueries,
    wallets: WalletHandlers,
  ) {
    this.routes = {
      [SESSIONS_COMMANDS.createPaymentIntent]: (body, sender) => intents.create(body, sender.correlationId),
      [SESSIONS_COMMANDS.getPaymentIntent]: (body) => intents.get(body),
      [SESSIONS_COMMANDS.simulatePaymentIntent]: (body, sender) => intents.simulate(body, sender.correlationId, sender.commandId),
      [SESSIONS_COMMANDS.cancelPaymentIntent]: (body, sender) => intents.cancel(body, sender.correlationId, sender.commandId),
      [SESSIONS_COMMANDS.createInvoice]: (body, sender) => invoices.create(body, sender.correlationId),
      [SESSIONS_COMMANDS.getInvoice]: (body) => invoices.get(body),
      [SESSIONS_COMMANDS.simulateInvoice]: (body, sender) => invoices.simulate(body, sender.correlationId, sender.commandId),
      [SESSIONS_COMMANDS.findPayment]: (body) => payments.find(body),
      [SESSIONS_COMMANDS.getCheckout]: (body) => checkout.get(body),
      [SESSIONS_COMMANDS.simulateCryptoTransfer]: (body, sender) => intents.simulateCryptoTransfer(body, sender.correlationId, sender.commandId),
      [SESSIONS_COMMANDS.cryptoAddress]: (body, sender) => intents.cryptoAddress(body, sender.correlationId, sender.commandId),
      [SESSIONS_COMMANDS.startProviderPayment]: (body) => providerPayments.start(body),
      [SESSIONS_COMMANDS.confirmProviderPayment]: (body) => providerPayments.confirm(body),
      [SESSIONS_COMMANDS.providerNotification]: (body) => providerPayments.notification(body),
      [SESSIONS_COMMANDS.refundAtProvider]: (body) => providerPayments.refundAtProvider(body),
      [SESSIONS_COMMANDS.providerRefundStatus]: (body) => providerPayments.providerRefundStatus(body),
      [SESSIONS_COMMANDS.listPaymentIntents]: (body) => queries.listPaymentIntents(body) as Promise<SessionsCommandMap['payment-intents.list']['reply']>,
      [SESSIONS_COMMANDS.listInvoices]: (body) => queries.listInvoices(body) as Promise<SessionsCommandMap['invoices.list']['reply']>,
      [SESSIONS_COMMANDS.listSessionEvents]: (body) => queries.listEvents(body),
      [SESSIONS_COMMANDS.payFromWallet]: (body) => wallets.pay(body),
      [SESSIONS_COMMANDS.startWalletTopUp]: (body) => wallets.startTopUp(body),
      [SESSIONS_COMMANDS.confirmWalletTopUp]: (body) => wallets.confirmTopUp(body),
    };
  }

  @MessagePattern(Object.values(SESSIONS_COMMANDS).map((name) => commandPattern(SESSIONS_SERVICE, name)))
  handle(@Payload() request: RpcRequest<unknown>, @Ctx() context: CommandContext): Promise<RpcReply<unknown>> {
    const name = context.getPattern().slice(PREFIX.length) as SessionsCommandName;
    const sender = { correlationId: correlationOf(request), commandId: request.command_id };
    const route: (body: unknown, sender: Sender) => Promise<unknown> = this.routes[name];
    return serveCommand(request, (body) => route(body, sender), mapSessionsError);
  }
}
