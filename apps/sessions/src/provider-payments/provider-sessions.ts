import type { StreamScope } from '../event-store/event-store';
import type { Invoice, InvoicePaymentMethod, IntentPaymentMethod, PaymentIntent } from '../domain';
import type { InvoiceCommands } from '../invoices/invoice.commands';
import type { PaymentIntentCommands } from '../payment-intents/payment-intent.commands';
import type { Clock } from '../shared/clock';
import { merchantOf, type ProviderAttempt, type SessionWithOpenRow } from './provider-attempts.repository';
import type { NotBooked, PayableSession, ProviderSessions, SessionSnapshot } from './provider-payments';

/** What a SessionSnapshot holds: the aggregate as a step read or left it. */
type Held = { kind: 'payment_intent'; aggregate: PaymentIntent } | { kind: 'invoice'; aggregate: Invoice };
const snapshotOf = (held: Held) => held as unknown as SessionSnapshot;
const heldOf = (snapshot: SessionSnapshot | undefined) => snapshot as unknown as Held | undefined;
const intentFrom = (snapshot: SessionSnapshot | undefined) => {
  const held = heldOf(snapshot);
  return held?.kind === 'payment_intent' ? held.aggregate : undefined;
};
const invoiceFrom = (snapshot: SessionSnapshot | undefined) => {
  const held = heldOf(snapshot);
  return held?.kind === 'invoice' ? held.aggregate : undefined;
};

type Owner = (id: string) => Promise<StreamScope | null>;

/** Each attempt's changes carry their own command ids, so a callback, a notification and the check act once. */
const caller = (attempt: ProviderAttempt, step: 'begin' | 'paid' | 'declined') => ({
  correlationId: `attempt_${attempt.reference}`,
  commandId: `attempt-${attempt.reference}-${step}`,
});

const isLate = (paidAt: string | null, expiresAt: string) => paidAt !== null && Date.parse(paidAt) >= Date.parse(expiresAt);

/** Payment intents and invoices as provider payments see them (an intent is processing while its customer is away). */
export function providerSessions(
  intents: PaymentIntentCommands,
  invoices: InvoiceCommands,
  owners: { payment_intent: Owner; invoice: Owner },
  clock: Clock,
  withOpen: (kind: 'payment_intent' | 'invoice', id: string) => Promise<SessionWithOpenRow | null>,
): ProviderSessions {
  const scopeOf = (attempt: ProviderAttempt): StreamScope => ({ merchantId: merchantOf(attempt), environment: attempt.environment });
  const kindOf = (id: string) => (id.startsWith('pi_') ? 'payment_intent' : id.startsWith('inv_') ? 'invoice' : null);
  /** The session as paying it goes, from its aggregate as read now. */
  const describe = (scope: StreamScope, held: Held): PayableSession => {
    const now = clock.now();
    const { state, status } =
      held.kind === 'payment_intent'
        ? { state: held.aggregate.state, status: held.aggregate.effectiveStatus(now) as string }
        : { state: held.aggregate.state, status: held.aggregate.effectiveStatus(now) as string };
    const payable: PayableSession['payable'] = ['requires_payment_method', 'failed', 'pending'].includes(status);
    const open = payable || status === 'processing';
    return {
      scope,
      kind: held.kind,
      payable,
      open,
      methods: state.methods,
      amountCents: state.amountCents,
      customerEmail: state.customer?.email ?? null,
      successUrl: state.successUrl,
      feeSchedule: state.feeSchedule,
      snapshot: snapshotOf(held),
    };
  };
  return {
    async find(id) {
      const kind = kindOf(id);
      const scope = kind ? await owners[kind](id) : null;
      if (!kind || !scope) return null;
      return describe(
        scope,
        kind === 'payment_intent' ? { kind, aggregate: await intents.aggregateOf(scope, id) } : { kind, aggregate: await invoices.aggregateOf(scope, id) },
      );
    },

    async findWithOpen(id) {
      const kind = kindOf(id);
      const read = kind ? await withOpen(kind, id) : null;
      if (!kind || !read) return null;
      const held: Held =
        kind === 'payment_intent'
          ? { kind, aggregate: intents.aggregateFrom(read.scope, id, read.events as Parameters<PaymentIntentCommands['aggregateFrom']>[2]) }
          : { kind, aggregate: invoices.aggregateFrom(read.scope, id, read.events as Parameters<InvoiceCommands['aggregateFrom']>[2]) };
      return { session: describe(read.scope, held), open: read.open };
    },


    async begin(session, attempt, step = {}) {
      if (session.kind !== 'payment_intent') {
        // An invoice stays pending: only the attempt's own rows are written.
        const statements = step.with?.() ?? [];
        if (statements.length > 0) await invoices.writeAlone(statements);
        return session.snapshot;
      }
      const { aggregate } = await intents.changeWith(
        session.scope,
        attempt.sessionId,
        caller(attempt, 'begin'),
        (intent, now) => intent.submitMethod(attempt.method as IntentPaymentMethod, now),
        // The attempt's reference is new: its begin cannot be in the stream the session was read from.
        { from: intentFrom(session.snapshot), ...(step.with ? { with: step.with } : {}) },
      );
      return snapshotOf({ kind: 'payment_intent', aggregate });
    },

    async succeed(attempt, paymentId, step = {}) {
      let notBooked: NotBooked = null;
      const also = step.with ? { with: () => step.with!(notBooked) } : {};
      if (attempt.sessionKind === 'payment_intent') {
        const { resource: intent } = await intents.changeWith(
          scopeOf(attempt),
          attempt.sessionId,
          caller(attempt, 'paid'),
          (current, now) => {
            // Paid another way, or cancelled by the merchant or the customer while a declined attempt stayed open:
            // a cancelled intent stays cancelled, as for crypto sent to it.
            notBooked = current.state.status === 'succeeded' ? 'session_already_paid' : current.state.status === 'cancelled' ? 'session_cancelled' : null;
            if (notBooked !== null) return [];
            return current.confirmProviderPayment({ method: attempt.method as IntentPaymentMethod, paymentId, now, ...(attempt.walletId ? { walletId: attempt.walletId } : {}) });
          },
          { from: intentFrom(step.from), ...also },
        );
        // After a cancel the payment came after the session closed: late, so the customer sees our page, not the shop's.
        const late = notBooked === 'session_cancelled' || (notBooked === null && isLate(intent.paid_at, intent.expires_at));
        return { paymentId: notBooked ? null : (intent.payment_id ?? paymentId), late, notBooked };
      }
      const { resource: invoice } = await invoices.changeWith(scopeOf(attempt), attempt.sessionId, caller(attempt, 'paid'), (current, now) => {
        notBooked = null;
        if (current.state.status !== 'paid') {
          // A wallet payment reports the wallet's profile as the payer (its phone already masked by the gateway).
          if (attempt.payer) {
            return current.confirmProviderPayment({ method: attempt.method as InvoicePaymentMethod, paymentId, payer: attempt.payer, payerPhoneMasked: true, walletId: attempt.walletId ?? undefined, now });
          }
          const customer = current.state.customer;
          return current.confirmProviderPayment({ method: attempt.method as InvoicePaymentMethod, paymentId, payer: customer ?? undefined, now });
        }
        notBooked = 'session_already_paid';
        return [];
      }, { from: invoiceFrom(step.from), ...also });
      return { paymentId: notBooked ? null : (invoice.payment?.reference ?? paymentId), late: !notBooked && isLate(invoice.paid_at, invoice.expires_at), notBooked };
    },

    async decline(attempt, reason, step = {}) {
      const also = step.with ? { with: step.with } : {};
      if (attempt.sessionKind === 'payment_intent') {
        await intents.changeWith(
          scopeOf(attempt),
          attempt.sessionId,
          caller(attempt, 'declined'),
          (intent, now) => (intent.effectiveStatus(now) === 'processing' && intent.state.paymentMethod === attempt.method ? intent.fail({ reason, now }) : []),
          { from: intentFrom(step.from), ...also },
        );
        return;
      }
      await invoices.changeWith(
        scopeOf(attempt),
        attempt.sessionId,
        caller(attempt, 'declined'),
        (invoice, now) => (['pending', 'failed'].includes(invoice.effectiveStatus(now)) ? invoice.fail({ method: attempt.method as InvoicePaymentMethod, reason, now }) : []),
        { from: invoiceFrom(step.from), ...also },
      );
    },
  };
}
