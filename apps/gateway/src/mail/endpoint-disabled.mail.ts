import type { Environment } from '@payments/ids';
import type { OutgoingMail } from './outgoing-mail';

export interface DisabledEndpoint {
  id: string;
  url: string;
  environment: Environment;
  reason: 'gone' | 'failing';
  disabledAt: Date;
}

const WHY: Record<DisabledEndpoint['reason'], string> = {
  gone: 'It answered 410 Gone, which says the endpoint no longer exists.',
  failing: 'Deliveries to it kept failing (no 2xx answer, or no answer at all) for days, with none succeeding.',
};

/** Where the merchant sees the endpoint and enables it again. */
export function endpointPageUrl(publicBaseUrl: string, endpoint: Pick<DisabledEndpoint, 'id' | 'environment'>): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/dashboard/${endpoint.environment}/developers/webhooks/${encodeURIComponent(endpoint.id)}`;
}

/**
 * The notice of an endpoint the webhook-dispatcher disabled on its own: webhook products whose endpoints stop
 * silently are the most common complaint, so its owners hear of it at once.
 */
export function endpointDisabledMail(to: string, endpoint: DisabledEndpoint, publicBaseUrl: string): OutgoingMail {
  const mode = endpoint.environment === 'live' ? 'live' : 'test';
  return {
    kind: 'endpoint_disabled',
    to,
    subject: `Webhook endpoint disabled (${mode} mode)`,
    text: [
      `We stopped sending webhooks to one of your ${mode} mode endpoints:`,
      '',
      `  ${endpoint.url}`,
      '',
      `Why: ${WHY[endpoint.reason]}`,
      `Disabled at: ${endpoint.disabledAt.toISOString()}`,
      '',
      'Events from now on are kept, not sent. Once the endpoint works again, enable it on its page; the events it',
      'missed are sent to it then:',
      '',
      `  ${endpointPageUrl(publicBaseUrl, endpoint)}`,
      '',
      `Endpoint id: ${endpoint.id}`,
    ].join('\n'),
  };
}
