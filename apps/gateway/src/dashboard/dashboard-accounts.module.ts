import { Module } from '@nestjs/common';
import { SIGN_IN_ACCOUNTS } from './sign-in/accounts-port';

/** Injection token of the SessionUsers the session check reads. */
export const SESSION_USERS = Symbol('SESSION_USERS');

/** The accounts (apps/gateway/src/accounts) as the dashboard's pages see them. */
@Module({
  providers: [],
  exports: [],
})
export class DashboardAccountsModule {}

export { SIGN_IN_ACCOUNTS };
