import type { StreamScope } from '../event-store/event-store';
import type { InvoicePaymentMethod, IntentPaymentMethod } from '../domain';
import type { InvoiceCommands } from '../invoices/invoice.commands';
import type { PaymentIntentCommands } from '../payment-intents/payment-intent.commands';
import type { Clock } from '../shared/clock';
import { merchantOf, type ProviderAttempt } from './provider-attempts.repository';
import type { PayableSession, ProviderSessions } from './provider-payments';

type Owner = (id: string) => Promise<StreamScope | null>;

/** Each attempt's changes carry their own command ids, so a callback, a notification and the check act once. */
const caller = (attempt: ProviderAttempt, step: 'begin' | 'paid' | 'declined') => ({
  correlationId: `attempt_${attempt.reference}`,
  commandId: `attempt-${attempt.reference}-${step}`,
});

const isLate = (paidAt: string | null, expiresAt: string) => paidAt !== null && Date.parse(paidAt) >= Date.parse(expiresAt);

/** Payment intents and invoices as provider payments see them (an intent is processing while its customer is away). */
export function providerSessions(intents: PaymentIntentCommands, invoices: InvoiceCommands, owners: { payment_intent: Owner; invoice: Owner }, clock: Clock): ProviderSessions {
  const scopeOf = (attempt: ProviderAttempt): StreamScope => ({ merchantId: merchantOf(attempt), environment: attempt.environment });
  return {
    async find(id) {
      const kind = id.startsWith('pi_') ? 'payment_intent' : id.startsWith('inv_') ? 'invoice' : null;
      const scope = kind ? await owners[kind](id) : null;
      if (!kind || !scope) return null;
      const now = clock.now();
      const { state, status } =
        kind === 'payment_intent'
          ? await intents.aggregateOf(scope, id).then((intent) => ({ state: intent.state, status: intent.effectiveStatus(now) as string }))
          : await invoices.aggregateOf(scope, id).then((invoice) => ({ state: invoice.state, status: invoice.effectiveStatus(now) as string }));
      const payable: PayableSession['payable'] = ['requires_payment_method', 'failed', 'pending'].includes(status);
      const open = payable || status === 'processing';
      return { scope, kind, payable, open, methods: state.methods, amountCents: state.amountCents, customerEmail: state.customer?.email ?? null, feeSchedule: state.feeSchedule };
    },

    async begin(session, attempt) {
      if (session.kind !== 'payment_intent') return;
      await intents.change(session.scope, attempt.sessionId, caller(attempt, 'begin'), (intent, now) => intent.submitMethod(attempt.method as IntentPaymentMethod, now));
    },

    async succeed(attempt, paymentId) {
      let alreadyPaid = false;
      if (attempt.sessionKind === 'payment_intent') {
        const intent = await intents.change(scopeOf(attempt), attempt.sessionId, caller(attempt, 'paid'), (current, now) => {
          if (current.state.status !== 'succeeded') return current.confirmProviderPayment({ method: attempt.method as IntentPaymentMethod, paymentId, now, ...(attempt.walletId ? { walletId: attempt.walletId } : {}) });
          alreadyPaid = true;
          return [];
        });
        return { paymentId: alreadyPaid ? null : (intent.payment_id ?? paymentId), late: !alreadyPaid && isLate(intent.paid_at, intent.expires_at), alreadyPaid };
      }
      const invoice = await invoices.change(scopeOf(attempt), attempt.sessionId, caller(attempt, 'paid'), (current, now) => {
        if (current.state.status !== 'paid') {
          // A wallet payment reports the wallet's profile as the payer (its phone already masked by the gateway).
          if (attempt.payer) {
            return current.confirmProviderPayment({ method: attempt.method as InvoicePaymentMethod, paymentId, payer: attempt.payer, payerPhoneMasked: true, walletId: attempt.walletId ?? undefined, now });
          }
          const customer = current.state.customer;
          return current.confirmProviderPayment({ method: attempt.method as InvoicePaymentMethod, paymentId, payer: customer ?? undefined, now });
        }
        alreadyPaid = true;
        return [];
      });
      return { paymentId: alreadyPaid ? null : (invoice.payment?.reference ?? paymentId), late: !alreadyPaid && isLate(invoice.paid_at, invoice.expires_at), alreadyPaid };
    },

    async decline(attempt, reason) {
      if (attempt.sessionKind === 'payment_intent') {
        await intents.change(scopeOf(attempt), attempt.sessionId, caller(attempt, 'declined'), (intent, now) =>
          intent.effectiveStatus(now) === 'processing' && intent.state.paymentMethod === attempt.method ? intent.fail({ reason, now }) : [],
        );
        return;
      }
      await invoices.change(scopeOf(attempt), attempt.sessionId, caller(attempt, 'declined'), (invoice, now) =>
        ['pending', 'failed'].includes(invoice.effectiveStatus(now)) ? invoice.fail({ method: attempt.method as InvoicePaymentMethod, reason, now }) : [],
      );
    },
  };
}
