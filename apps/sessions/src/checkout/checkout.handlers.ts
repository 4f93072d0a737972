import { SESSIONS_COMMANDS, validateCommand, type CheckoutCryptoOption, type CheckoutSession, type CheckoutTerms, type InvoiceResource, type PaymentIntentResource } from '@payments/contracts';
import { ApiError } from '@payments/platform';
import { LRUCache } from 'lru-cache';
import type { StreamScope } from '../event-store/event-store';
import type { PaymentProviders } from '../providers/payment-providers';

interface Kind<R> {
  owner(id: string): Promise<StreamScope | null>;
  get(scope: StreamScope, id: string): Promise<R>;
}

/** The terms a session was created with (its first event), as far as the checkout uses them. */
export type TermsOf = (scope: StreamScope, id: string) => Promise<{ successUrl: string | null; cancelUrl: string | null; methods: readonly string[] } | null>;

/** What never changes about a session once created: whose it is and the terms the page uses. */
interface FixedPart {
  kind: 'payment_intent' | 'invoice';
  terms: CheckoutTerms;
}

/**
 * The hosted checkout's read: a session by its id alone, as its owner's get renders it (expiry applied). Whose it is
 * and its terms never change after creation, so they are kept (by id) and a page view costs one read of the session.
 */
export class CheckoutHandlers {
  private readonly fixed = new LRUCache<string, FixedPart>({ max: 10_000 });

  constructor(
    private readonly intents: Kind<PaymentIntentResource>,
    private readonly invoices: Kind<InvoiceResource>,
    private readonly termsOf: TermsOf,
    private readonly providers: PaymentProviders,
    /** The configured networks + tokens of an environment (none where crypto is not configured). */
    private readonly cryptoOptions: (environment: StreamScope['environment']) => CheckoutCryptoOption[] = () => [],
  ) {}

  async get(body: unknown): Promise<CheckoutSession> {
    const check = validateCommand(SESSIONS_COMMANDS.getCheckout, body);
    if (!check.ok) throw new ApiError('invalid_request', check.message, check.param);
    const { id } = body as { id: string };
    const fixed = await this.fixedPart(id);
    if (!fixed) throw new ApiError('not_found', 'No such checkout session.', 'id');
    const scope = { merchantId: fixed.terms.merchant_id, environment: fixed.terms.environment };
    return fixed.kind === 'payment_intent'
      ? { kind: 'payment_intent', ...fixed.terms, session: await this.intents.get(scope, id) }
      : { kind: 'invoice', ...fixed.terms, session: await this.invoices.get(scope, id) };
  }

  /** Unknown ids are not kept: a session created a moment later is found. */
  private async fixedPart(id: string): Promise<FixedPart | null> {
    const kept = this.fixed.get(id);
    if (kept) return kept;
    const kind: FixedPart['kind'] | null = id.startsWith('pi_') ? 'payment_intent' : id.startsWith('inv_') ? 'invoice' : null;
    const scope = kind === 'payment_intent' ? await this.intents.owner(id) : kind === 'invoice' ? await this.invoices.owner(id) : null;
    if (!kind || !scope) return null;
    const fixed: FixedPart = { kind, terms: await this.terms(kind, scope, id) };
    this.fixed.set(id, fixed);
    return fixed;
  }

  private async terms(kind: FixedPart['kind'], scope: StreamScope, id: string): Promise<CheckoutTerms> {
    const terms = await this.termsOf(scope, id);
    const methods = [...(terms?.methods ?? [])];
    return {
      merchant_id: scope.merchantId,
      environment: scope.environment,
      success_url: terms?.successUrl ?? null,
      cancel_url: terms?.cancelUrl ?? null,
      methods,
      provider_methods: this.providers.methodsIn(scope.environment, methods),
      // Only intents have deposit addresses (invoices do not offer live crypto yet); the page offers them where the
      // intent lists crypto among its available methods.
      crypto_options: kind === 'payment_intent' ? this.cryptoOptions(scope.environment) : [],
    };
  }
}
