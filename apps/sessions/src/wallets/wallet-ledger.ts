// The ledger as wallet payments and top-ups need it: a port (plain TypeScript), so the sessions logic is the same
// whether the ledger is the real service over the command transport or a stand-in in a test.
import type { PayFromWalletCommand, PayFromWalletReply, TopUpWalletCommand, WalletCreditReply } from '@payments/contracts';

export interface WalletLedger {
  /**
   * Debits the wallet and credits the merchant in one posting, keyed by `payment_id`: the answer is final per payment
   * id (a repeat gets the first answer, never a second posting). Throws LedgerRefused when the ledger refused the
   * command (it posted nothing); any other error means no answer: it may or may not have posted, ask again.
   */
  pay(command: PayFromWalletCommand): Promise<PayFromWalletReply>;
  /** Credits a verified top-up once per `top_up_id`; errors as for pay. */
  topUp(command: TopUpWalletCommand): Promise<WalletCreditReply>;
}

/** The ledger answered with a refusal (a 4xx: the command is not valid there, or it has no such command): nothing was posted. */
export class LedgerRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'LedgerRefused';
  }
}
