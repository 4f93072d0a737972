import { Injectable, Logger } from '@nestjs/common';
import {
  type CheckoutSession,
  invoiceResourceAt,
  paymentIntentResourceAt,
  CreateInvoiceCommand,
  CreatePaymentIntentCommand,
  GetPaymentIntentCommand,
  InvoiceResource,
  PaymentIntentResource,
  SESSIONS_COMMANDS,
  SESSIONS_SERVICE,
  SessionsCommandName,
  SimulateCryptoTransferCommand,
  type CryptoAddressCommand,
  SimulateInvoiceCommand,
  SimulateInvoiceReply,
  SimulatePaymentIntentCommand,
  type ListInvoicesCommand,
  type ListPaymentIntentsCommand,
  type ListSessionEventsCommand,
  type ProviderNotificationReply,
  type ProviderPaymentOutcome,
  type SessionEventView,
  type SessionsList,
  type PayFromWalletCheckoutCommand,
  type StartWalletTopUpCommand,
  type StartWalletTopUpReply,
  type WalletPaymentOutcome,
  type WalletTopUpOutcome,
} from '@payments/contracts';
import { commandPattern, ServiceClient, type CommandOptions } from '@payments/platform';
import { ResourceCache, type CachedResourceKey } from '../resource-cache/resource-cache';

/** What every sessions command names: whose resource, in which environment. */
interface ResourceCommand {
  merchant_id: string;
  environment: string;
  id: string;
}

function keyOf(command: ResourceCommand): CachedResourceKey {
  return { merchantId: command.merchant_id, environment: command.environment, id: command.id };
}

/**
 * Typed commands to the sessions service (every one safe to retry: sessions acts on a command id once). Reads go through the gateway's resource
 * cache: a hit never leaves the gateway; creates fill it and changes invalidate it once sessions has answered.
 */
@Injectable()
export class SessionsClient {
  private readonly logger = new Logger('SessionsClient');
  private readonly patterns = new Map<SessionsCommandName, string>(
    Object.values(SESSIONS_COMMANDS).map((name) => [name, commandPattern(SESSIONS_SERVICE, name)]),
  );

  constructor(
    private readonly services: ServiceClient,
    private readonly cache: ResourceCache,
  ) {}

  createPaymentIntent(command: CreatePaymentIntentCommand, caller: CommandOptions): Promise<PaymentIntentResource> {
    return this.created(command, this.send(SESSIONS_COMMANDS.createPaymentIntent, command, caller));
  }

  getPaymentIntent(command: GetPaymentIntentCommand, caller: CommandOptions): Promise<PaymentIntentResource> {
    return this.read(command, paymentIntentResourceAt, () => this.send(SESSIONS_COMMANDS.getPaymentIntent, command, caller));
  }

  simulatePaymentIntent(command: SimulatePaymentIntentCommand, caller: CommandOptions): Promise<PaymentIntentResource> {
    return this.changing(command, this.send(SESSIONS_COMMANDS.simulatePaymentIntent, command, caller));
  }

  cancelPaymentIntent(command: GetPaymentIntentCommand, caller: CommandOptions): Promise<PaymentIntentResource> {
    return this.changing(command, this.send(SESSIONS_COMMANDS.cancelPaymentIntent, command, caller));
  }

  createInvoice(command: CreateInvoiceCommand, caller: CommandOptions): Promise<InvoiceResource> {
    return this.created(command, this.send(SESSIONS_COMMANDS.createInvoice, command, caller));
  }

  getInvoice(command: GetPaymentIntentCommand, caller: CommandOptions): Promise<InvoiceResource> {
    return this.read(command, invoiceResourceAt, () => this.send(SESSIONS_COMMANDS.getInvoice, command, caller));
  }

  simulateInvoice(command: SimulateInvoiceCommand, caller: CommandOptions): Promise<SimulateInvoiceReply> {
    return this.changing(command, this.send(SESSIONS_COMMANDS.simulateInvoice, command, caller));
  }

  /** The checkout's crypto sandbox: a test transfer to the intent's address. */
  simulateCryptoTransfer(command: SimulateCryptoTransferCommand, caller: CommandOptions): Promise<PaymentIntentResource> {
    return this.changing(command, this.send(SESSIONS_COMMANDS.simulateCryptoTransfer, command, caller));
  }

  /**
   * The customer chose crypto at checkout: sessions gives the intent its own deposit address and answers the intent
   * with `crypto.address` set (the same address when asked again, so a double click is one address).
   */
  cryptoAddress(command: CryptoAddressCommand, caller: CommandOptions): Promise<PaymentIntentResource> {
    return this.changing(command, this.send(SESSIONS_COMMANDS.cryptoAddress, command, caller));
  }

  /** A session by its id alone, for the hosted checkout (not cached: the page shows what sessions says now). */
  getCheckout(id: string, caller: CommandOptions): Promise<CheckoutSession> {
    return this.send(SESSIONS_COMMANDS.getCheckout, { id }, caller);
  }

  /**
   * The checkout sends the customer to a provider (Lahza): the page of the session's one open attempt. The session
   * moves on (an intent to processing), so its cached version goes, as with any other change.
   */
  startProviderPayment(id: string, method: 'lahza', scope: { merchant_id: string; environment: string }, caller: CommandOptions): Promise<{ redirect_url: string }> {
    return this.changing({ ...scope, id }, this.send(SESSIONS_COMMANDS.startProviderPayment, { id, method }, caller));
  }

  /** The customer is back from the provider: sessions verifies the attempt with the provider. */
  async confirmProviderPayment(command: { id: string; reference: string }, scope: { merchant_id: string; environment: string }, caller: CommandOptions): Promise<ProviderPaymentOutcome> {
    return this.changing({ ...scope, id: command.id }, this.send(SESSIONS_COMMANDS.confirmProviderPayment, command, caller));
  }

  /** The signed-in customer pays the session from their wallet (the command id makes a resubmit one attempt). */
  payFromWallet(command: PayFromWalletCheckoutCommand, caller: CommandOptions): Promise<WalletPaymentOutcome> {
    return this.changing({ id: command.id }, this.send(SESSIONS_COMMANDS.payFromWallet, command, caller));
  }

  /** A card top-up of a wallet at the provider: answers the provider's page. */
  startWalletTopUp(command: StartWalletTopUpCommand, caller: CommandOptions): Promise<StartWalletTopUpReply> {
    return this.send(SESSIONS_COMMANDS.startWalletTopUp, command, caller);
  }

  /** Back from the provider's top-up page: sessions verifies with the provider and credits the wallet once. */
  confirmWalletTopUp(reference: string, caller: CommandOptions): Promise<WalletTopUpOutcome> {
    return this.send(SESSIONS_COMMANDS.confirmWalletTopUp, { reference }, caller);
  }

  /** A provider's notification, passed on as received (sessions checks its signature and verifies). */
  async providerNotification(rawBody: Buffer, signature: string | null, caller: CommandOptions): Promise<ProviderNotificationReply> {
    const reply = await this.send<ProviderNotificationReply>(SESSIONS_COMMANDS.providerNotification, { provider: 'lahza', body: rawBody.toString('base64'), signature }, caller);
    if (reply.session) await this.invalidate(keyOf(reply.session));
    return reply;
  }

  /**
   * The dashboard's lists, newest first, filtered (not cached: a list shows what sessions holds now). Each resource
   * is as GET shows it; an unknown or foreign `starting_after` is an invalid_request.
   */
  listPaymentIntents(command: ListPaymentIntentsCommand, caller: CommandOptions): Promise<SessionsList<PaymentIntentResource>> {
    return this.send(SESSIONS_COMMANDS.listPaymentIntents, command, caller);
  }

  listInvoices(command: ListInvoicesCommand, caller: CommandOptions): Promise<SessionsList<InvoiceResource>> {
    return this.send(SESSIONS_COMMANDS.listInvoices, command, caller);
  }

  /** The timeline of one `pi_…` or `inv_…`, oldest first; not_found for another merchant's or environment's. */
  listSessionEvents(command: ListSessionEventsCommand, caller: CommandOptions): Promise<SessionsList<SessionEventView>> {
    return this.send(SESSIONS_COMMANDS.listSessionEvents, command, caller);
  }

  /** From the cache, as it reads now; on a miss from sessions, then cached unless it changed meanwhile. */
  private async read<T>(command: ResourceCommand, at: (resource: T, now: Date) => T, fetch: () => Promise<T>): Promise<T> {
    const key = keyOf(command);
    const lookup = await this.cache.lookup<T>(key);
    if (lookup?.hit) return at(lookup.resource, new Date());
    const resource = await fetch();
    if (lookup) await this.cache.fill(key, lookup.generation, resource);
    return resource;
  }

  /**
   * A new resource's first version is cached (unless something already changed it), without holding the answer:
   * a GET before the fill lands misses and asks sessions, and a fill after a change is refused by its generation.
   */
  private async created<T extends { id: string }>(command: Omit<ResourceCommand, 'id'>, reply: Promise<T>): Promise<T> {
    const resource = await reply;
    void this.cache.fill(keyOf({ ...command, id: resource.id }), '', resource);
    return resource;
  }

  /**
   * A command that may change the resource invalidates it when sessions has answered, whatever the answer (a
   * timeout may still have changed it). If Redis refuses, the invalidation from the sessions event follows.
   */
  private async changing<T>(command: Pick<ResourceCommand, 'id'>, reply: Promise<T>): Promise<T> {
    try {
      return await reply;
    } finally {
      // Resources are cached by id alone.
      await this.invalidate({ id: command.id });
    }
  }

  private async invalidate(key: Pick<CachedResourceKey, 'id'>): Promise<void> {
    try {
      await this.cache.invalidate([key]);
    } catch (error) {
      this.logger.warn({ err: error, id: key.id }, 'could not invalidate the cached resource; the sessions event will');
    }
  }

  private send<T>(name: SessionsCommandName, body: object, caller: CommandOptions): Promise<T> {
    return this.services.request<T>(this.patterns.get(name)!, body, caller);
  }
}
