import type { ArgumentMetadata } from '@nestjs/common';
import { REFUNDS_COMMANDS, type PaymentResource, type RefundParams, type RefundResource } from '@payments/contracts';
import { formatMoney, parseMoneyString } from '@payments/money';
import { ApiError, type CommandOptions } from '@payments/platform';
import { randomBytes } from 'node:crypto';
import { CreateRefundDto } from '../../refunds/create-refund.dto';
import type { RefundsClient } from '../../refunds/refunds.client';
import { apiValidationPipe } from '../../validation/api-validation.pipe';
import type { Role } from '../session/dashboard-auth';
import { RoleForbidden } from '../web/dashboard-exception.filter';
import type { OperationsScope } from './object-history';
import type { OperationsKey } from './operations-messages';
import { can } from '../../accounts/roles';

/** The refund form's idempotency key, made when the form is rendered: a double submit is one refund. */
export const REFUND_FORM_KEY = /^dashboard_refund_[A-Za-z0-9]{32}$/;

export function newRefundFormKey(): string {
  return `dashboard_refund_${randomBytes(24).toString('base64url').replace(/[-_]/g, '').padEnd(32, '0').slice(0, 32)}`;
}

/** What the form asks: the whole remainder, or a part. */
export interface RefundForm {
  mode: 'full' | 'partial';
  amount?: string;
  reason?: string;
  key: string;
}

/** A form problem: one of the page's messages (in its language), or the API's own message where the page has none. */
export type RefundProblem = { key: OperationsKey } | { text: string };

/** The page's own words for the refusals a merchant meets on this form (the API's are English only). */
function problemOf(error: ApiError): RefundProblem {
  if (error.code === 'refund_exceeds_payment') return { key: 'refundExceeds' };
  if (error.code === 'invalid_request' && error.param === 'amount') return { key: 'refundAmountInvalid' };
  if (error.code === 'invalid_request' && error.param === 'reason') return { key: 'refundReasonTooLong' };
  return { text: error.message };
}

const DTO: ArgumentMetadata = { type: 'body', metatype: CreateRefundDto };

function field(form: Record<string, unknown>, name: string): string | undefined {
  const value = form[name];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

export type ReadRefundForm =
  | { kind: 'stale' }
  | { kind: 'problem'; form: RefundForm; problem: RefundProblem }
  | { kind: 'ok'; form: RefundForm; params: RefundParams };

/**
 * Reads a posted refund form into the API's refund params, validated by the API's own DTO (CreateRefundDto): the
 * same bounds and messages as POST /api/v1/payments/{id}/refunds. A missing or malformed key is a stale form.
 */
export async function readRefundForm(posted: Record<string, unknown>): Promise<ReadRefundForm> {
  const key = field(posted, 'idempotency_key') ?? '';
  if (!REFUND_FORM_KEY.test(key)) return { kind: 'stale' };
  const mode = field(posted, 'mode') === 'partial' ? 'partial' : 'full';
  const amount = mode === 'partial' ? field(posted, 'amount') : undefined;
  const reason = field(posted, 'reason');
  const form: RefundForm = { mode, key, ...(amount ? { amount } : {}), ...(reason ? { reason } : {}) };
  if (mode === 'partial' && !amount) return { kind: 'problem', form, problem: { key: 'refundAmountRequired' } };
  const params: RefundParams = { ...(amount ? { amount } : {}), ...(reason ? { reason } : {}) };
  try {
    await apiValidationPipe({ forbidUnknown: true }).transform(params, DTO);
  } catch (error) {
    if (error instanceof ApiError) return { kind: 'problem', form, problem: problemOf(error) };
    throw error;
  }
  return { kind: 'ok', form, params };
}

/** What remains to refund of a payment: its amount less its refunds that are done or under way (exact cents). */
export function refundableAmount(payment: PaymentResource): string {
  const cents = (value: string) => {
    const parsed = parseMoneyString(value, { minCents: 0, maxCents: Number.MAX_SAFE_INTEGER });
    return parsed.ok ? parsed.cents : 0;
  };
  const claimed = payment.refunds.filter((refund) => refund.status !== 'failed').reduce((sum, refund) => sum + cents(refund.amount), 0);
  return formatMoney(Math.max(0, cents(payment.amount) - claimed));
}

export type RefundOutcome = { ok: true; refund: RefundResource } | { ok: false; problem: RefundProblem };

/**
 * The refund button's action on the API's command: the role may refund (a viewer is refused, nothing sent), the
 * form's key is the refunds command's idempotency key and command id (a second submit answers the same refund), and
 * the service's refusal (more than remains, a payment not refundable) comes back as its message. Another merchant's
 * or environment's payment is the service's not_found: thrown, a 404 page.
 */
export class DashboardRefunds {
  constructor(private readonly refunds: RefundsClient) {}

  async refund(role: Role, scope: OperationsScope, paymentId: string, form: RefundForm, params: RefundParams, caller: CommandOptions): Promise<RefundOutcome> {
    if (!can(role, 'refund')) throw new RoleForbidden();
    const command = { ...scope, payment_id: paymentId, idempotency_key: form.key, params };
    try {
      return { ok: true, refund: await this.refunds.send(REFUNDS_COMMANDS.createRefund, command, { ...caller, commandId: form.key }) };
    } catch (error) {
      if (error instanceof ApiError && error.code !== 'not_found' && error.code !== 'service_unavailable' && error.code !== 'internal_error') {
        return { ok: false, problem: problemOf(error) };
      }
      throw error;
    }
  }
}
