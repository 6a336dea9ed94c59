import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from '../../../../src/main/core/service/content-security';

describe('content security policy header', () => {
  it("is the renderer page's own policy plus frame-ancestors", () => {
    const html = readFileSync('src/renderer/index.html', 'utf8');
    const declared = html.match(/Content-Security-Policy" content="([^"]+)"/)![1];
    expect(contentSecurityPolicy(html)).toBe(`${declared.replace(/;\s*$/, '')}; frame-ancestors 'none'`);
    expect(contentSecurityPolicy(html)).toContain("script-src 'self'");
  });

  it('falls back to same-origin only when the page declares none', () => {
    expect(contentSecurityPolicy('<html><head></head></html>')).toBe(
      "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(contentSecurityPolicy(null)).toMatch(/^default-src 'self'/);
  });
});
