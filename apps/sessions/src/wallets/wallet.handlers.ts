import {
  SESSIONS_COMMANDS,
  validateCommand,
  type ConfirmWalletTopUpCommand,
  type PayFromWalletCheckoutCommand,
  type StartWalletTopUpCommand,
  type StartWalletTopUpReply,
  type WalletPaymentOutcome,
  type WalletTopUpOutcome,
} from '@payments/contracts';
import { ApiError } from '@payments/platform';
import type { WalletPayments } from './wallet-payments';
import type { WalletTopUps } from './wallet-top-ups';

function parsed<T>(name: (typeof SESSIONS_COMMANDS)[keyof typeof SESSIONS_COMMANDS], body: unknown): T {
  const check = validateCommand(name, body);
  if (!check.ok) throw new ApiError('invalid_request', check.message, check.param);
  return body as T;
}

/** The checkout's wallet payment and the wallet page's top-ups as they arrive, each checked against its schema first. */
export class WalletHandlers {
  constructor(
    private readonly payments: WalletPayments,
    private readonly topUps: WalletTopUps,
  ) {}

  async pay(body: unknown): Promise<WalletPaymentOutcome> {
    return this.payments.pay(parsed<PayFromWalletCheckoutCommand>(SESSIONS_COMMANDS.payFromWallet, body));
  }

  async startTopUp(body: unknown): Promise<StartWalletTopUpReply> {
    return this.topUps.start(parsed<StartWalletTopUpCommand>(SESSIONS_COMMANDS.startWalletTopUp, body));
  }

  async confirmTopUp(body: unknown): Promise<WalletTopUpOutcome> {
    return this.topUps.confirm(parsed<ConfirmWalletTopUpCommand>(SESSIONS_COMMANDS.confirmWalletTopUp, body).reference);
  }
}
