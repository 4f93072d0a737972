import { ACTIONS, can } from './roles';

describe('can(role, action)', () => {
  it('lets an owner do everything', () => {
    for (const action of ACTIONS) expect(can('owner', action)).toBe(true);
  });

  it('lets a developer view, manage keys and webhooks, and refund; not the team or verification', () => {
    expect(ACTIONS.filter((action) => can('developer', action))).toEqual(['view', 'manage_keys', 'manage_webhooks', 'refund']);
  });

  it('lets a viewer only view', () => {
    expect(ACTIONS.filter((action) => can('viewer', action))).toEqual(['view']);
  });

  it('lets an unknown role do nothing', () => {
    for (const action of ACTIONS) expect(can('admin', action)).toBe(false);
  });
});
