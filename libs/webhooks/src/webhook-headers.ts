import { intentSignatureHeader, invoiceSignatureHeader, signPayload } from './signature';
import type { WebhookScheme } from './webhook-scheme';

export interface SignedHeadersInput {
  scheme: WebhookScheme;
  eventId: string;
  eventType: string;
  body: string;
  /** Unix seconds at send time: each attempt is signed afresh (the receiver's 300 s tolerance). */
  timestamp: number;
  /** The current secret first, then a rolled-over one that still signs. */
  secrets: readonly string[];
  /** A service-specific agent name with a version, e.g. `PaymentsWebhooks/1.0`. */
  userAgent: string;
}

/** The headers of one attempt, exactly as each surface specifies them. */
export function signedWebhookHeaders(input: SignedHeadersInput): Record<string, string> {
  if (input.secrets.length === 0) throw new Error('a webhook needs at least one signing secret');
  const signatures = input.secrets.map((secret) => signPayload(secret, input.timestamp, input.body));
  if (input.scheme === 'invoice') {
    return {
      'Content-Type': 'application/json',
      'User-Agent': input.userAgent,
      'Service-Event-Id': input.eventId,
      'Service-Timestamp': String(input.timestamp),
      'Service-Signature': invoiceSignatureHeader(signatures),
    };
  }
  return {
    'Content-Type': 'application/json',
    'User-Agent': input.userAgent,
    'X-Service-Event': input.eventType,
    'X-Service-Signature': intentSignatureHeader(input.timestamp, signatures),
  };
}
