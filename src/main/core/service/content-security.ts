// The renderer declares its Content-Security-Policy in index.html; both doors also send that
// policy as a header, adding what only a header can carry (who may frame the page).
const META_CSP = /<meta\s+http-equiv=(["'])Content-Security-Policy\1\s+content=(["'])(.*?)\2/is;

/** Used when a page declares no policy of its own: same-origin only. */
const FALLBACK_POLICY = "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'";

/** The page's own policy plus `frame-ancestors 'none'`, which only a header can carry. */
export function contentSecurityPolicy(indexHtml: string | null): string {
  const declared = indexHtml?.match(META_CSP)?.[3].trim().replace(/;\s*$/, '') ?? FALLBACK_POLICY;
  return `${declared}; frame-ancestors 'none'`;
}
