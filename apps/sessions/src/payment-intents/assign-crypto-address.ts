import type { SqlStatement } from '@payments/database';
import type { DataSource } from 'typeorm';
import type { CommandCaller } from '../command-pipeline/session-commands';
import type { CryptoAddresses } from '../crypto/crypto-addresses';
import type { DepositAddresses } from '../crypto/deposit-addresses';
import { DomainError, type PaymentIntentResource } from '../domain';
import type { StreamScope } from '../event-store/event-store';
import type { Clock } from '../shared/clock';
import type { PaymentIntentCommands } from './payment-intent.commands';
import { sandboxAddress } from './simulate-crypto-transfer';
import { isUniqueViolation } from '../event-store/event-store';

const SESSION_ADDRESS_CONSTRAINT = 'crypto_addresses_session_key';

/**
 * The customer chose crypto at checkout: the intent gets its own deposit address (lazily: creates stay lean and the
 * watch list small). Asked again it answers the same address. The next index of the environment's sequence is
 * taken first; the address is recorded on the intent and in `crypto_addresses` in one statement, so both or
 * neither are written: two clicks at once both decide on the same version, one wins, the other's statement fails
 * (nothing of it written, its index a harmless gap) and its retry finds the address. In test mode without a
 * configured test chain the intent gets its sandbox address, as the sandbox transfer gives it.
 */
export class AssignCryptoAddress {
  constructor(
    private readonly intents: PaymentIntentCommands,
    private readonly dataSource: DataSource,
    private readonly addresses: CryptoAddresses,
    private readonly deposits: DepositAddresses,
    private readonly clock: Clock,
  ) {}

  async execute(input: { readonly scope: StreamScope; readonly id: string; readonly caller: CommandCaller }): Promise<PaymentIntentResource> {
    const { scope, id, caller } = input;
    const { environment } = scope;
    if (!this.deposits.configuredFor(environment)) {
      if (environment === 'live') throw new DomainError('payment_methods_unavailable', 'crypto payments are not configured for live mode');
      return this.intents.change(scope, id, caller, (intent, now) => intent.assignCryptoAddress(intent.state.crypto.address ?? sandboxAddress(id), now));
    }
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.assign(input);
      } catch (error) {
        // Another click's address was committed first: its row's unique session may fail this statement before its
        // stream version does. Asked again, the intent has that address.
        if (!isUniqueViolation(error, SESSION_ADDRESS_CONSTRAINT) || attempt >= 3) throw error;
      }
    }
  }

  private async assign(input: { readonly scope: StreamScope; readonly id: string; readonly caller: CommandCaller }): Promise<PaymentIntentResource> {
    const { scope, id, caller } = input;
    const { environment } = scope;
    const current = await this.intents.aggregateOf(scope, id);
    let allocated: { index: number; address: string } | null = null;
    if (current.state.crypto.address === null) {
      current.requireCryptoAddressAssignable(this.clock.now());
      const index = await this.addresses.nextIndex(this.dataSource, environment);
      allocated = { index, address: this.deposits.addressAt(environment, index) };
    }
    let row: SqlStatement | null = null;
    const { resource } = await this.intents.changeWith(
      scope,
      id,
      caller,
      (intent, now) => {
        row = null;
        if (intent.state.crypto.address !== null || allocated === null) return intent.assignCryptoAddress(intent.state.crypto.address ?? '', now);
        const events = intent.assignCryptoAddress(allocated.address, now);
        row = this.addresses.insertStatement({ ...allocated, environment, sessionId: id, assignedAt: now, expiresAt: intent.state.expiresAt });
        return events;
      },
      {
        // The row rides only with the event that records the address (never alone).
        with: () => {
          const statements = row ? [row] : [];
          row = null;
          return statements;
        },
      },
    );
    return resource;
  }
}
