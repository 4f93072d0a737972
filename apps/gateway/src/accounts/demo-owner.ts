import { randomBytes } from 'node:crypto';
import type { AccountsRepository } from './accounts.repository';
import { newUserId } from './accounts.service';
import type { PasswordHasher } from './password-hasher';

/**
 * The development demo merchant's dashboard owner (what `npm start` prints): created confirmed on first use, and on
 * every call given a fresh password, unlocked, with its other sessions ended. Never used outside development.
 */
export async function resetDemoOwner(
  repository: AccountsRepository,
  hasher: PasswordHasher,
  merchantId: string,
  email: string,
): Promise<{ email: string; password: string }> {
  const password = randomBytes(12).toString('base64url');
  const passwordHash = await hasher.hash(password);
  const existing = await repository.findUserByEmail(email);
  if (existing && existing.merchantId !== merchantId) throw new Error(`${email} is a user of another merchant`);
  if (existing) {
    await repository.updateUser(existing.id, { passwordHash, failedLogins: 0, lockedAt: null, emailConfirmedAt: existing.emailConfirmedAt ?? new Date() });
    await repository.bumpSessionEpoch(existing.id);
  } else {
    await repository.insertUser({ id: newUserId(), merchantId, email, passwordHash, role: 'owner', language: 'en', emailConfirmedAt: new Date() });
  }
  return { email, password };
}
