/** Why an account operation was refused; the admin CLI prints the message, HTTP callers map the reason. */
export type MerchantAccountErrorReason = 'not_found' | 'invalid' | 'not_verified' | 'conflict';

export class MerchantAccountError extends Error {
  constructor(
    readonly reason: MerchantAccountErrorReason,
    message: string,
  ) {
    super(message);
    this.name = 'MerchantAccountError';
  }
}
