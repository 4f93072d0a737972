import { newPaymentIntentId } from '@payments/ids';
import { resolveIntentMethods } from '../commands/method-resolution';
import { createRequest, newSessionFields, type CreateSessionInput } from '../commands/session-inputs';
import { PaymentIntent, type IntentPaymentMethod, type PaymentIntentResource } from '../domain';
import type { Environment } from '@payments/ids';
import type { PaymentIntentCommands } from './payment-intent.commands';

/** A merchant creates a payment intent; the same idempotency key answers the intent it made before. */
export class CreatePaymentIntent {
  constructor(
    private readonly intents: PaymentIntentCommands,
    /** The methods a customer can use in an environment (a method without its provider there is not offered). */
    private readonly usableIn: (environment: Environment) => readonly IntentPaymentMethod[],
  ) {}

  async execute(input: CreateSessionInput): Promise<PaymentIntentResource> {
    const id = newPaymentIntentId(input.scope.environment);
    return this.intents.create(input.scope, createRequest(id, input), (_none, now) =>
      PaymentIntent.create({ ...newSessionFields(id, input, now), methods: resolveIntentMethods(input.params.methods, input.enabledMethods, this.usableIn(input.scope.environment)) }),
    );
  }
}
