/** Why an accounts operation was refused; the web layer maps each reason to a message (and `field` to its input). */
export type AccountErrorReason =
  | 'invalid_email'
  | 'weak_password'
  | 'invalid'
  | 'email_taken'
  | 'invalid_token'
  | 'token_expired'
  | 'invalid_credentials'
  | 'locked'
  | 'invalid_code'
  | 'totp_already_enabled'
  | 'totp_not_started'
  | 'totp_not_enabled'
  | 'forbidden'
  | 'not_found'
  | 'last_owner';

export class AccountError extends Error {
  constructor(
    readonly reason: AccountErrorReason,
    message: string,
    /** The form field at fault, when there is one; for weak_password the policy's PasswordProblem is in `detail`. */
    readonly field?: string,
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'AccountError';
  }
}
