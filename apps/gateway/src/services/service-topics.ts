import { SESSIONS_COMMANDS, SESSIONS_SERVICE, WEBHOOKS_COMMANDS, WEBHOOKS_SERVICE } from '@payments/contracts';
import { commandTopic } from '@payments/platform';

/** Services the gateway talks to, and every command it sends (their services' command topics are created at start). */
export const SERVICES = ['sessions', 'ledger', 'refunds', 'webhooks'] as const;
export type ServiceName = (typeof SERVICES)[number];

export function gatewayCommandTopics(): string[] {
  return [
    ...SERVICES.map((service) => commandTopic(service, 'ping')),
    ...Object.values(SESSIONS_COMMANDS).map((name) => commandTopic(SESSIONS_SERVICE, name)),
    ...Object.values(WEBHOOKS_COMMANDS).map((name) => commandTopic(WEBHOOKS_SERVICE, name)),
  ];
}
