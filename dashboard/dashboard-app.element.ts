/**
 * `<dashboard-app>`: signs in, routes between the pages by path (history API, real links), shows
 * who is signed in, signs out, and follows the live feed: a change to one of the merchant's payments
 * refreshes the payments list or that payment's page, without a reload.
 */
import { html, LitElement, type TemplateResult } from 'lit';
import { keyed } from 'lit/directives/keyed.js';
import { call, RequestFailed, SESSION_ENDED, type SessionInfo, useCsrfToken } from './api.ts';
import { formFields } from './format.ts';
import { LOGIN_PATH, pageOf } from './routes.ts';
import type { PageElement } from './page-element.ts';
import './pages/balance-page.element.ts';
import './pages/keys-page.element.ts';
import './pages/not-found-page.element.ts';
import './pages/payment-page.element.ts';
import './pages/payments-page.element.ts';
import './pages/refunds-page.element.ts';
import { SETTINGS_SAVED } from './pages/settings-page.element.ts';
import './pages/webhooks-page.element.ts';
import './pages/withdrawals-page.element.ts';

const NAV: Array<[string, string]> = [
  ['/dashboard/payments', 'Payments'],
  ['/dashboard/refunds', 'Refunds'],
  ['/dashboard/withdrawals', 'Withdrawals'],
  ['/dashboard/balance', 'Balance'],
  ['/dashboard/webhooks', 'Webhooks'],
  ['/dashboard/keys', 'API keys'],
  ['/dashboard/settings', 'Settings'],
];

/** The dashboard application. */
export class DashboardApp extends LitElement {
  static override properties = { session: { state: true }, path: { state: true }, visit: { state: true }, ready: { state: true }, failure: { state: true } };
  declare session: SessionInfo | undefined;
  declare path: string;
  /** Moves on with every visit (a link, Back, Forward): each makes its page anew from the address. */
  declare visit: number;
  declare ready: boolean;
  declare failure: string;
  #events: EventSource | undefined;

  constructor() {
    super();
    this.path = location.pathname;
    this.visit = 0;
    this.ready = false;
    this.failure = '';
  }

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    addEventListener('popstate', () => this.#show(location.pathname + location.search));
    addEventListener(SESSION_ENDED, (event) => this.#sessionEnded((event as CustomEvent<string>).detail));
    this.addEventListener('click', (event) => this.#followLink(event));
    // The header names the shop: a rename in Settings shows there at once, not after a reload.
    this.addEventListener(SETTINGS_SAVED, (event) => {
      if (this.session) this.session = { ...this.session, merchant: { ...this.session.merchant, name: event.detail.name } };
    });
    void call<SessionInfo>('GET', '/session')
      .then((session) => this.#signedIn(session))
      .catch(() => undefined)
      .finally(() => (this.ready = true));
  }

  #signedIn(session: SessionInfo): void {
    useCsrfToken(session.csrfToken);
    this.session = session;
    this.#events?.close();
    this.#events = new EventSource('/dashboard/api/events');
    this.#events.addEventListener('payment', (event) => this.#paymentChanged(JSON.parse((event as MessageEvent<string>).data) as { id: string }));
    if (this.path === LOGIN_PATH || this.path === '/dashboard' || this.path === '/dashboard/') this.#navigate('/dashboard/payments', true);
  }

  #paymentChanged(change: { id: string }): void {
    const page = this.querySelector<PageElement & { paymentId?: string }>('[data-page]');
    if (!page) return;
    if (page.localName === 'payments-page' || (page.localName === 'payment-page' && (change.id === '*' || page.paymentId === change.id))) void page.refresh(true).catch(() => undefined);
  }

  #followLink(event: MouseEvent): void {
    const link = (event.target as Element).closest('a');
    if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    const url = new URL(link.href);
    if (url.origin !== location.origin || !url.pathname.startsWith('/dashboard/') || url.pathname.startsWith('/dashboard/api/')) return;
    event.preventDefault();
    this.#navigate(url.pathname + url.search);
  }

  #navigate(path: string, replace = false): void {
    if (replace) history.replaceState(null, '', path);
    else history.pushState(null, '', path);
    this.#show(path);
  }

  // A new page takes the focus to its heading, so keyboard and screen reader users start there.
  // A visit to the page already shown (its link again, or Back to the same path with other filters
  // in the address) makes it anew too, so what it shows always matches the address.
  #show(path: string): void {
    this.path = new URL(path, location.origin).pathname;
    this.visit += 1;
    void this.updateComplete.then(() => this.querySelector<HTMLElement>('[data-page] h1')?.focus());
  }

  async #signIn(event: Event): Promise<void> {
    const { email, password } = formFields(event);
    this.failure = '';
    try {
      this.#signedIn(await call<SessionInfo>('POST', '/session', { email, password }));
    } catch (err) {
      this.failure = err instanceof RequestFailed ? err.message : 'Could not reach the server.';
    }
  }

  // A call found the session gone: back to the sign-in form, saying why, instead of pages that cannot load.
  #sessionEnded(message: string): void {
    if (!this.session) return;
    this.#events?.close();
    this.session = undefined;
    this.failure = message;
    this.#navigate(LOGIN_PATH, true);
  }

  async #signOut(): Promise<void> {
    await call('DELETE', '/session').catch(() => undefined);
    this.#events?.close();
    this.session = undefined;
    this.#navigate(LOGIN_PATH, true);
  }

  #page(session: SessionInfo): TemplateResult {
    const page = pageOf(this.path);
    switch (page?.name) {
      case 'payment-page':
        return html`<payment-page data-page .session=${session} paymentId=${page.paymentId}></payment-page>`;
      case 'refunds-page':
        return html`<refunds-page data-page .session=${session}></refunds-page>`;
      case 'withdrawals-page':
        return html`<withdrawals-page data-page .session=${session}></withdrawals-page>`;
      case 'balance-page':
        return html`<balance-page data-page .session=${session}></balance-page>`;
      case 'webhooks-page':
        return html`<webhooks-page data-page .session=${session}></webhooks-page>`;
      case 'keys-page':
        return html`<keys-page data-page .session=${session}></keys-page>`;
      case 'settings-page':
        return html`<settings-page data-page .session=${session}></settings-page>`;
      case 'payments-page':
        return html`<payments-page data-page .session=${session}></payments-page>`;
      default:
        return html`<not-found-page data-page .session=${session}></not-found-page>`;
    }
  }

  override render() {
    if (!this.ready) return html`<main id="main"><p role="status">Loading…</p></main>`;
    const session = this.session;
    if (!session) {
      return html`<main id="main" class="sign-in">
        <h1>Sign in to the dashboard</h1>
        <form class="stacked" @input=${() => (this.failure = '')} @submit=${(e: Event) => void this.#signIn(e)}>
          <label>E-mail <input name="email" type="email" autocomplete="username" required /></label>
          <label>Password <input name="password" type="password" autocomplete="current-password" required /></label>
          <button type="submit">Sign in</button>
        </form>
        ${this.failure ? html`<p role="alert" class="failure">${this.failure}</p>` : ''}
      </main>`;
    }
    return html`
      <a class="skip" href="#main">Skip to content</a>
      <header>
        <p class="shop">${session.merchant.name}</p>
        <nav aria-label="Dashboard">
          <ul>${NAV.map(([href, label]) => html`<li><a href=${href} aria-current=${this.path.startsWith(href) ? 'page' : 'false'}>${label}</a></li>`)}</ul>
        </nav>
        <p class="who">${session.user.email} (${session.user.role}) <button type="button" @click=${() => void this.#signOut()}>Sign out</button></p>
      </header>
      <main id="main">${keyed(this.visit, this.#page(session))}</main>
    `;
  }
}
customElements.define('dashboard-app', DashboardApp);
