/** A user's role at their merchant (DESIGN §8). */
export const ROLES = ['owner', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** What a dashboard page or form may do; every action needs one of these. */
export const ACTIONS = ['view', 'manage_keys', 'manage_webhooks', 'refund', 'manage_team', 'manage_verification'] as const;
export type Action = (typeof ACTIONS)[number];

const ALLOWED: Record<Role, ReadonlySet<Action>> = {
  owner: new Set(ACTIONS),
  developer: new Set<Action>(['view', 'manage_keys', 'manage_webhooks', 'refund']),
  viewer: new Set<Action>(['view']),
};

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Whether `role` may do `action`; an unknown role may do nothing. */
export function can(role: string, action: Action): boolean {
  return isRole(role) && ALLOWED[role].has(action);
}
