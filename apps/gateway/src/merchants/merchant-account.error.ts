/** Why an account operation was refused; the admin CLI prints the message, HTTP callers map the reason. */
export type MerchantAccountErrorReason = 'not_found' | 'invalid' | 'not_verified' | 'conflict';

export class MerchantAccountError extends Error {
  constructor(
    readonly reason: MerchantAccountErrorReason,
    message: string,
    /** The input at fault, for a form to mark (e.g. a verification detail). */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'MerchantAccountError';
  }
}
