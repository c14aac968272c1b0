import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One file of the dashboard: its bytes, type and a strong ETag. */
export interface Asset {
  body: Uint8Array;
  type: string;
  etag: string;
}

/** The files the dashboard is made of, by content type; nothing else is ever read from disk. */
const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/**
 * The dashboard's built files (`dist/ui/`, made by `npm run build` from `ui/`), bundled into the
 * package and read once: nothing comes from a CDN, so the page works offline. The library build
 * (`dist/dashboard/`) and the CLI bundle (`dist/bundle/`) both find them one level up; the sources
 * run under the tests find them in `dist/` of the checkout.
 */
export function loadAssets(): ReadonlyMap<string, Asset> | undefined {
  const dir = [new URL('../ui/', import.meta.url), new URL('../../dist/ui/', import.meta.url)]
    .map((url) => fileURLToPath(url))
    .find((candidate) => existsSync(`${candidate}index.html`));
  if (dir === undefined) return undefined;
  const assets = new Map<string, Asset>();
  for (const [name, type] of Object.entries(TYPES)) {
    const body = readFileSync(`${dir}${name}`);
    assets.set(name, {
      body,
      type,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    });
  }
  return assets;
}

/**
 * The page's Content-Security-Policy: its own script and style only (no inline script, nothing
 * from elsewhere), requests to this server only, and never framed by another site.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
