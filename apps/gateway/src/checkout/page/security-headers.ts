/** The customer pages' headers (the checkout, the wallet): nothing from elsewhere, no framing, nothing cached. */
export function securityHeaders(nonce: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    // Nothing from elsewhere (the crypto deposit page's script asks only this origin for the session's state): inline style and script only under this response's nonce; forms post here, and the
    // redirect after a payment (or a top-up) may go to the merchant's (or the provider's) https page.
    'content-security-policy': `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self'; form-action 'self' https:; frame-ancestors 'none'; base-uri 'none'`,
    // same-origin, not no-referrer: with no-referrer Chromium posts our own forms with `Origin: null`, and the wallet's forms are refused
    // unless they name our origin. Other sites still get no Referer (the session id stays here).
    'referrer-policy': 'same-origin',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
  };
}
