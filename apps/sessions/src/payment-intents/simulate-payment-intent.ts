import { newPaymentId } from '@payments/ids';
import { assertTestMode, type SimulateSessionInput } from '../commands/session-inputs';
import type { IntentPaymentMethod, PaymentIntentResource } from '../domain';
import type { PaymentIntentCommands } from './payment-intent.commands';

/** Test mode: drives an intent through processing to `succeeded` (a new payment) or `failed`. */
export class SimulatePaymentIntent {
  constructor(private readonly intents: PaymentIntentCommands) {}

  async execute(input: SimulateSessionInput<'succeeded' | 'failed', IntentPaymentMethod>): Promise<PaymentIntentResource> {
    assertTestMode(input.scope, 'payment intents');
    const { result, method } = input;
    return this.intents.change(input.scope, input.id, input.caller, (intent, now) =>
      result === 'succeeded' ? intent.simulate({ result, method, paymentId: newPaymentId(), now }) : intent.simulate({ result, method, now }),
    );
  }
}
