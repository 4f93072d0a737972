import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { Accounts } from '../accounts/accounts.service';
import { MailModule } from '../mail/mail.module';
import { MailOutbox } from '../mail/mail-outbox';
import { SIGN_IN_ACCOUNTS } from './sign-in/accounts-port';

/** Injection token of the SessionUsers the session check reads. */
export const SESSION_USERS = Symbol('SESSION_USERS');

/** The accounts (apps/gateway/src/accounts, mailing through the gateway's outbox) as the dashboard's pages see them. */
@Module({
  imports: [AccountsModule.withMailer(MailOutbox, [MailModule])],
  providers: [
    { provide: SESSION_USERS, useExisting: Accounts },
    { provide: SIGN_IN_ACCOUNTS, useExisting: Accounts },
  ],
  exports: [SESSION_USERS, SIGN_IN_ACCOUNTS, AccountsModule],
})
export class DashboardAccountsModule {}

export { SIGN_IN_ACCOUNTS };
