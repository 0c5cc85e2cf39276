import { createHash } from 'node:crypto';

/**
 * The live page's only script, a constant: twice a second it asks the server (HEAD, nothing
 * rendered) for the page's version, and reloads the page once it changed — the browser keeps the
 * scroll position. It reads a header and the page's own data-version, never a text of the board
 * or an agent, and the Content-Security-Policy lets no other script run.
 */
export const LIVE_SCRIPT = `(() => {
  const shown = document.documentElement.dataset.version;
  const poll = async () => {
    try {
      const answer = await fetch(location.href, { method: 'HEAD', cache: 'no-store' });
      const version = (answer.headers.get('etag') || '').replace(/"/g, '');
      if (answer.ok && version && version !== shown) return location.reload();
    } catch {
      // the server stopped (Ctrl-C): the page stays as it is
    }
    setTimeout(poll, 500);
  };
  setTimeout(poll, 500);
})();`;

// Inline styles only, no request anywhere but this page's own address: no font, image, frame or form.
const BASE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/** The static page's policy (a meta tag): no script at all. */
export const STATIC_POLICY = BASE_POLICY;

/** The live page's policy (a header): the one script above, by its hash, and requests to itself. */
export function livePolicy(): string {
  const hash = createHash('sha256').update(LIVE_SCRIPT).digest('base64');
  return `${BASE_POLICY}; script-src 'sha256-${hash}'; connect-src 'self'; frame-ancestors 'none'`;
}
