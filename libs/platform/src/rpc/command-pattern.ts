/**
 * A command's name on the wire, `<service>.<command>` (e.g. `sessions.payment-intents.create`): the handler's
 * message pattern, and what the caller's transport reads to know which service owns it.
 */
export function commandPattern(service: string, command: string): string {
  return `${service}.${command}`;
}

/** The service that owns a command (the part of its pattern before the first dot). */
export function serviceOfPattern(pattern: string): string {
  const at = pattern.indexOf('.');
  if (at <= 0) throw new Error(`not a command pattern: ${pattern}`);
  return pattern.slice(0, at);
}
