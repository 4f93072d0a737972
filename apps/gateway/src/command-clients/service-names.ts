/** Services the gateway sends commands to (each has its *_URL setting). */
export const SERVICES = ['sessions', 'ledger', 'refunds', 'webhooks'] as const;
export type ServiceName = (typeof SERVICES)[number];
