import { ApiError } from '@payments/platform';
import { checkWebhookTarget, type HostLookup } from '@payments/webhooks';

/**
 * Only public HTTPS targets (DESIGN §6): checked here when an endpoint is configured, and again by the
 * dispatcher at each delivery, which connects to the address it checked.
 */
export class WebhookTargetPolicy {
  constructor(
    private readonly allowInsecure: boolean,
    /** A HostResolver's lookup: its own timeouts, off libuv's thread pool, capped per merchant. */
    private readonly lookup: HostLookup,
  ) {}

  async assertAllowed(url: string, param: string, merchantId: string): Promise<void> {
    const lookup: HostLookup = (host) => this.lookup(host, { owner: merchantId });
    const result = await checkWebhookTarget(url, { allowInsecure: this.allowInsecure }, lookup);
    if (!result.ok) {
      const scheme = this.allowInsecure ? 'an http(s)' : 'a public https';
      throw new ApiError('invalid_request', `${param} ${result.reason}: webhooks go to ${scheme} address only.`, param);
    }
  }
}
