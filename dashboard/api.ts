/** The dashboard's calls to its own server: same origin, the session cookie, the CSRF token on changes. */

/** An error answer of the server, with its contract code. */
export class RequestFailed extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let csrfToken = '';

/** Dispatched on the window when a call finds the session gone; `detail` is the server's message. */
export const SESSION_ENDED = 'dashboard-session-ended';

/** Remembers the session's CSRF token (from sign-in or the session read). */
export function useCsrfToken(token: string): void {
  csrfToken = token;
}

/** How a call was asked for: `live` when the page reads again by itself, not at the user's hand. */
export interface CallOptions {
  live?: boolean;
}

/**
 * Calls `/dashboard/api<path>`; JSON in and out, and a RequestFailed for any error answer. A live
 * read says so (`X-Live-Read: 1`): it does not count as use, so a tab left open still goes idle.
 */
export async function call<T>(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.live) headers['X-Live-Read'] = '1';
  if (method !== 'GET') headers['X-CSRF-Token'] = csrfToken;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`/dashboard/api${path}`, { method, headers, credentials: 'same-origin', ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  if (response.status === 204) return undefined as T;
  const parsed = (await response.json().catch(() => undefined)) as { error?: { code: string; message: string; details?: Array<{ path: string; message: string }> } } | undefined;
  if (!response.ok) {
    const failed = new RequestFailed(response.status, parsed?.error?.code ?? 'internal-error', errorText(parsed?.error) ?? `The server answered ${response.status}.`);
    // The session ended meanwhile (idle, signed out elsewhere, password reset): the app shows the sign-in form.
    if (failed.code === 'not-signed-in') dispatchEvent(new CustomEvent(SESSION_ENDED, { detail: failed.message }));
    throw failed;
  }
  return parsed as T;
}

/** An error's message, with each bad field and why (the message names the fields only). */
function errorText(error: { message: string; details?: Array<{ path: string; message: string }> } | undefined): string | undefined {
  if (!error) return undefined;
  const details = error.details ?? [];
  return details.length === 0 ? error.message : `${error.message} ${details.map((d) => `${d.path} ${d.message}.`).join(' ')}`;
}

/** A signed-in session as the server describes it. */
export interface SessionInfo {
  user: { id: string; email: string; role: 'owner' | 'viewer' };
  merchant: { id: string; name: string };
  csrfToken: string;
}

/** A list answer. */
export interface ListOf<T> {
  data: T[];
  page: number;
  limit: number;
  total: number;
}
