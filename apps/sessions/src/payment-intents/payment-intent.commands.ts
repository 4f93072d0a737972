import type { SessionCommands } from '../command-pipeline/session-commands';
import type { PaymentIntent, PaymentIntentEvent, PaymentIntentResource, PaymentIntentState } from '../domain';

/** The command pipeline for payment intents (see SessionCommands). */
export type PaymentIntentCommands = SessionCommands<PaymentIntent, PaymentIntentState, PaymentIntentEvent, PaymentIntentResource>;
