// Security headers of the pages a browser renders: the dashboard at / and Swagger UI at /docs. Both
// load only their own files (no CDN), so the policy allows 'self' and nothing else: no inline script
// anywhere, no framing (clickjacking), no referrer leaking a URL to another site. Swagger UI sets
// style attributes and uses data: images (its icons), so /docs allows those; the dashboard needs
// data: images only for its empty favicon. connect-src 'self' covers the same-origin WebSocket.
import type { ServerResponse } from 'node:http';

const COMMON = "default-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

export const DASHBOARD_CSP = `${COMMON}; img-src 'self' data:; style-src 'self'`;
export const DOCS_CSP = `${COMMON}; img-src 'self' data:; style-src 'self' 'unsafe-inline'`;

export function setPageSecurityHeaders(res: ServerResponse, csp: string): void {
  res.setHeader('content-security-policy', csp);
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('x-content-type-options', 'nosniff');
}
