/**
 * The dashboard's addresses and the page each shows: read by the app's router in the browser and by
 * the server, which answers an address with no page 404 (the app still says "Page not found").
 */

/** A page of the dashboard, by its element's name. */
export type PageName = 'payments-page' | 'payment-page' | 'refunds-page' | 'withdrawals-page' | 'balance-page' | 'webhooks-page' | 'keys-page' | 'settings-page';

const PAGES: Record<string, PageName> = {
  '/dashboard': 'payments-page',
  '/dashboard/': 'payments-page',
  '/dashboard/payments': 'payments-page',
  '/dashboard/refunds': 'refunds-page',
  '/dashboard/withdrawals': 'withdrawals-page',
  '/dashboard/balance': 'balance-page',
  '/dashboard/webhooks': 'webhooks-page',
  '/dashboard/keys': 'keys-page',
  '/dashboard/settings': 'settings-page',
};

/** The sign-in form's address: the app shows the form there, or the payments list once signed in. */
export const LOGIN_PATH = '/dashboard/login';

/**
 * The page a path shows, with the payment id of a payment's page; undefined for a path with no
 * page. `path` is a URL's pathname (percent-encoded as sent).
 */
export function pageOf(path: string): { name: PageName; paymentId?: string } | undefined {
  const payment = /^\/dashboard\/payments\/([^/]+)$/.exec(path)?.[1];
  if (payment !== undefined) {
    try {
      return { name: 'payment-page', paymentId: decodeURIComponent(payment) };
    } catch {
      return undefined;
    }
  }
  if (path === LOGIN_PATH) return { name: 'payments-page' };
  const name = Object.hasOwn(PAGES, path) ? PAGES[path] : undefined;
  return name && { name };
}
