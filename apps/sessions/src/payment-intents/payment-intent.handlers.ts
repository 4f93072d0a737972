import type { Environment } from '@payments/ids';
import { SESSIONS_COMMANDS } from '@payments/contracts';
import { parseMoneyString } from '@payments/money';
import { ApiError } from '@payments/platform';
import { parseCommand } from '../commands/command-input';
import { SessionHandlers } from '../commands/session-handlers';
import type { IntentPaymentMethod, PaymentIntentResource } from '../domain';
import { AssignCryptoAddress } from './assign-crypto-address';
import { CancelPaymentIntent } from './cancel-payment-intent';
import { CreatePaymentIntent } from './create-payment-intent';
import type { PaymentIntentCommands } from './payment-intent.commands';
import { SimulateCryptoTransfer } from './simulate-crypto-transfer';
import { SimulatePaymentIntent } from './simulate-payment-intent';

/**
 * The payment intent commands as they arrive, each handed to its use case once its body passed its schema. The
 * controller serves these over the command transport; tests call them directly.
 */
export class PaymentIntentHandlers extends SessionHandlers<PaymentIntentResource> {
  private readonly simulating: SimulatePaymentIntent;
  private readonly cancelling: CancelPaymentIntent;
  private readonly transferring: SimulateCryptoTransfer;

  constructor(
    intents: PaymentIntentCommands,
    usableIn: (environment: Environment) => readonly IntentPaymentMethod[],
    private readonly addressing: AssignCryptoAddress,
  ) {
    super({ create: SESSIONS_COMMANDS.createPaymentIntent, get: SESSIONS_COMMANDS.getPaymentIntent }, new CreatePaymentIntent(intents, usableIn), intents);
    this.simulating = new SimulatePaymentIntent(intents);
    this.cancelling = new CancelPaymentIntent(intents);
    this.transferring = new SimulateCryptoTransfer(intents);
  }

  async simulateCryptoTransfer(body: unknown, correlationId: string, commandId?: string): Promise<PaymentIntentResource> {
    const { command, ...scope } = parseCommand(SESSIONS_COMMANDS.simulateCryptoTransfer, body);
    const amount = parseMoneyString(command.amount, { minCents: 1 });
    if (!amount.ok) throw new ApiError('invalid_request', `amount ${amount.message}`, 'amount');
    return this.transferring.execute({ scope, id: command.id as string, amountCents: amount.cents, caller: { correlationId, commandId } });
  }

  /** The customer chose crypto at checkout: the intent's own deposit address (the same one again). */
  async cryptoAddress(body: unknown, correlationId: string, commandId?: string): Promise<PaymentIntentResource> {
    const { command, ...scope } = parseCommand(SESSIONS_COMMANDS.cryptoAddress, body);
    return this.addressing.execute({ scope, id: command.id as string, caller: { correlationId, commandId } });
  }

  async simulate(body: unknown, correlationId: string, commandId?: string): Promise<PaymentIntentResource> {
    const { command, ...scope } = parseCommand(SESSIONS_COMMANDS.simulatePaymentIntent, body);
    return this.simulating.execute({
      scope,
      id: command.id as string,
      result: command.result as 'succeeded' | 'failed',
      method: command.method as IntentPaymentMethod | undefined,
      caller: { correlationId, commandId },
    });
  }

  async cancel(body: unknown, correlationId: string, commandId?: string): Promise<PaymentIntentResource> {
    const { command, ...scope } = parseCommand(SESSIONS_COMMANDS.cancelPaymentIntent, body);
    return this.cancelling.execute({ scope, id: command.id as string, caller: { correlationId, commandId } });
  }
}
