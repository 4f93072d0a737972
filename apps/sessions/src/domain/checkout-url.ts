/** The hosted checkout page of a session: `${base}/checkout/${id}` (a trailing slash on the base is ignored). */
export function checkoutUrl(checkoutBaseUrl: string, id: string): string {
  return `${checkoutBaseUrl.replace(/\/+$/, '')}/checkout/${encodeURIComponent(id)}`;
}
