/**
 * @module The claim page's one script, served from this origin (the CSP allows no inline script): while
 * the refund moves, it reads the page again every 10 seconds and replaces the progress region (a
 * polite live region, so a screen reader hears the new status), until the refund is done. Without
 * JavaScript the page reloads itself instead (a refresh inside <noscript>).
 */

/** Where the page loads it from. */
export const REFUND_FOLLOW_SCRIPT_PATH = '/refund/follow.js';

/** The script's text (plain JavaScript, no build step). */
export const REFUND_FOLLOW_SCRIPT = `const EVERY_MS = 10000;
const MOVING = new Set(['REQUESTED', 'APPROVED']);
const statusOf = (root) => root.querySelector('[data-refund-status]')?.getAttribute('data-refund-status');
async function follow() {
  try {
    const response = await fetch(location.href, { cache: 'no-store', credentials: 'same-origin' });
    if (response.ok) {
      const next = new DOMParser().parseFromString(await response.text(), 'text/html');
      const fresh = next.getElementById('refund-progress');
      const current = document.getElementById('refund-progress');
      if (fresh && current) current.replaceChildren(...fresh.childNodes);
      document.title = next.title;
      if (!MOVING.has(statusOf(document))) {
        document.getElementById('refund-follow-note')?.remove();
        return;
      }
    }
  } catch {
    // The network dropped for a moment: try again at the next turn.
  }
  setTimeout(follow, EVERY_MS);
}
setTimeout(follow, EVERY_MS);
`;
