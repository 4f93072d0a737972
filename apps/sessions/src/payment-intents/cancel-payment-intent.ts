import type { CommandCaller } from '../command-pipeline/session-commands';
import type { PaymentIntentResource } from '../domain';
import type { StreamScope } from '../event-store/event-store';
import type { PaymentIntentCommands } from './payment-intent.commands';

/** The merchant cancels an intent that has not been paid. */
export class CancelPaymentIntent {
  constructor(private readonly intents: PaymentIntentCommands) {}

  async execute(input: { readonly scope: StreamScope; readonly id: string; readonly caller: CommandCaller }): Promise<PaymentIntentResource> {
    return this.intents.change(input.scope, input.id, input.caller, (intent, now) => intent.cancel({ reason: 'requested_by_merchant', now }));
  }
}
