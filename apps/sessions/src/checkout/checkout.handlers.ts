import { SESSIONS_COMMANDS, validateCommand, type CheckoutSession, type CheckoutTerms, type InvoiceResource, type PaymentIntentResource } from '@payments/contracts';
import { ApiError } from '@payments/platform';
import type { StreamScope } from '../event-store/event-store';
import type { PaymentProviders } from '../providers/payment-providers';

interface Kind<R> {
  owner(id: string): Promise<StreamScope | null>;
  get(scope: StreamScope, id: string): Promise<R>;
}

/** The terms a session was created with (its first event), as far as the checkout uses them. */
export type TermsOf = (scope: StreamScope, id: string) => Promise<{ successUrl: string | null; cancelUrl: string | null; methods: readonly string[] } | null>;

/** The hosted checkout's read: a session by its id alone, as its owner's get renders it (expiry applied). */
export class CheckoutHandlers {
  constructor(
    private readonly intents: Kind<PaymentIntentResource>,
    private readonly invoices: Kind<InvoiceResource>,
    private readonly termsOf: TermsOf,
    private readonly providers: PaymentProviders,
  ) {}

  async get(body: unknown): Promise<CheckoutSession> {
    const check = validateCommand(SESSIONS_COMMANDS.getCheckout, body);
    if (!check.ok) throw new ApiError('invalid_request', check.message, check.param);
    const { id } = body as { id: string };
    if (id.startsWith('pi_')) {
      const scope = await this.intents.owner(id);
      if (scope) return { kind: 'payment_intent', ...(await this.terms(scope, id)), session: await this.intents.get(scope, id) };
    } else if (id.startsWith('inv_')) {
      const scope = await this.invoices.owner(id);
      if (scope) return { kind: 'invoice', ...(await this.terms(scope, id)), session: await this.invoices.get(scope, id) };
    }
    throw new ApiError('not_found', 'No such checkout session.', 'id');
  }

  private async terms(scope: StreamScope, id: string): Promise<CheckoutTerms> {
    const terms = await this.termsOf(scope, id);
    const methods = [...(terms?.methods ?? [])];
    return {
      merchant_id: scope.merchantId,
      environment: scope.environment,
      success_url: terms?.successUrl ?? null,
      cancel_url: terms?.cancelUrl ?? null,
      methods,
      provider_methods: this.providers.methodsIn(scope.environment, methods),
    };
  }
}
