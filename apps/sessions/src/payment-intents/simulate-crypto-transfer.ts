import { createHash, randomUUID } from 'node:crypto';
import { newPaymentId } from '@payments/ids';
import { assertTestMode } from '../commands/session-inputs';
import type { StreamScope } from '../event-store/event-store';
import type { PaymentIntent, PaymentIntentEvent, PaymentIntentResource } from '../domain';
import type { CommandCaller } from '../command-pipeline/session-commands';
import type { PaymentIntentCommands } from './payment-intent.commands';

/** A test intent's sandbox deposit address: fixed per intent, shaped like an EVM address, never a real one's key. */
export function sandboxAddress(intentId: string): string {
  return `0x${createHash('sha256').update(`sandbox:${intentId}`).digest('hex').slice(0, 40)}`;
}

/**
 * Test mode's crypto sandbox: a transfer of any amount to the intent's (sandbox) address, through the same events a
 * watched chain would give. Short of the amount the intent is `processing` and reports `partially_paid` with what
 * remains; once the transfers reach the amount it succeeds (a new payment), keeping any overpayment on record.
 */
export class SimulateCryptoTransfer {
  constructor(private readonly intents: PaymentIntentCommands) {}

  async execute(input: { scope: StreamScope; id: string; amountCents: number; caller: CommandCaller }): Promise<PaymentIntentResource> {
    assertTestMode(input.scope, 'payment intents');
    return this.intents.change(input.scope, input.id, input.caller, (intent, now) => {
      const events: PaymentIntentEvent[] = [];
      let current: PaymentIntent = intent;
      const step = (more: PaymentIntentEvent[]) => {
        events.push(...more);
        current = intent.apply(events);
      };
      if (current.state.crypto.address === null) step(current.assignCryptoAddress(sandboxAddress(input.id), now));
      step(current.recordCryptoTransfer({ txid: `sandbox_${randomUUID()}`, amountCents: input.amountCents, now }));
      if (current.state.crypto.receivedCents >= current.state.amountCents) step(current.succeed({ paymentId: newPaymentId(), now }));
      return events;
    });
  }
}
