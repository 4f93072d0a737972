import type { Role } from '../session/dashboard-auth';

export type OperationsAction = 'view' | 'refund';

/**
 * What a role may do in the operations views: owner everything, developer views and refunds, viewer views only.
 * To be replaced by the accounts domain's `can(role, action)` once it is merged (same rules).
 */
export function can(role: Role, action: OperationsAction): boolean {
  if (action === 'view') return true;
  return role === 'owner' || role === 'developer';
}
