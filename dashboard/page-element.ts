/** What every page shares: light DOM (one style sheet for the app), the session, a status line, refresh. */
import { LitElement } from 'lit';
import { RequestFailed, type SessionInfo } from './api.ts';

/** How often a page the event stream does not serve reads its records again (ms). */
export const FOLLOW_EVERY_MS = 5_000;

/** A dashboard page. */
export abstract class PageElement extends LitElement {
  static override properties = { session: { attribute: false }, message: { state: true }, failure: { state: true } };

  /** The signed-in session, set by the app. */
  declare session: SessionInfo;
  /** The last action's outcome, read out by screen readers. */
  declare message: string;
  /** The last error, shown in an alert. */
  declare failure: string;

  constructor() {
    super();
    this.message = '';
    this.failure = '';
  }

  /** The page's content is styled by the app's one style sheet. */
  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  /** Whether the signed-in user may change things. */
  protected get canChange(): boolean {
    return this.session.user.role === 'owner';
  }

  /**
   * Reads what the page shows again: after an action, or by itself (`live`: a change the event
   * stream told of, or the page's own follow-up), which does not count as use of the session.
   */
  abstract refresh(live?: boolean): Promise<void>;

  /**
   * Pages whose records the event stream does not tell of (withdrawals, refunds, the balance) read
   * them again this often while the page is in view; undefined: the event stream is enough.
   */
  static followEveryMs: number | undefined;
  #following: ReturnType<typeof setInterval> | undefined;

  // Reads by the order they started: every read, the user's last, and the one whose answer is shown.
  #started = 0;
  #asked = 0;
  #shown = 0;
  /**
   * The answer to a read, or undefined when it is superseded: by a read of the user's that started
   * after it (a double click, a filter sent while the page still loads, Next), or by a later read
   * whose answer is shown already. An older answer never replaces a newer one, and a live read (the
   * page's own) never drops the answer to a read the user asked for after it.
   */
  protected async newest<T>(read: Promise<T>, live = false): Promise<T | undefined> {
    const started = ++this.#started;
    if (!live) this.#asked = started;
    const answer = await read;
    if (started < this.#asked || started < this.#shown) return undefined;
    this.#shown = started;
    return answer;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.refresh().catch((err) => this.fail(err));
    const every = (this.constructor as typeof PageElement).followEveryMs;
    if (!every) return;
    // One follow-up at a time (a slow server does not pile them up). One that fails is tried again
    // at the next; a session that ended shows the sign-in form (api.ts).
    let busy = false;
    this.#following = setInterval(() => {
      if (busy || document.visibilityState !== 'visible') return;
      busy = true;
      void this.refresh(true)
        .catch(() => undefined)
        .finally(() => (busy = false));
    }, every);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearInterval(this.#following);
    this.#following = undefined;
  }

  /**
   * Runs an action, then says how it went and refreshes. `focus` names where the keyboard's focus
   * goes once the page shows the outcome (selectors, the first one found wins): the control that
   * was used is often gone by then (an approved row has no Approve), and the focus must not drop
   * to the document's start.
   */
  protected async act<T>(done: string | ((result: T) => string), work: () => Promise<T>, focus: string[] = []): Promise<void> {
    this.failure = '';
    this.message = '';
    try {
      const result = await work();
      this.message = typeof done === 'string' ? done : done(result);
      await this.refresh();
      if (focus.length > 0) await this.focusFirst(focus);
    } catch (err) {
      this.fail(err);
    }
  }

  /** Once the page has drawn, focuses the first element that matches one of `selectors`, in order. */
  protected async focusFirst(selectors: string[]): Promise<void> {
    await this.updateComplete;
    for (const selector of selectors) {
      const target = this.querySelector<HTMLElement>(selector);
      if (target) return target.focus();
    }
  }

  /**
   * A form's listener (`@input` and `@invalid`) that takes the last server error away once the
   * user edits the form or submits it again, also when the browser's own validation stops that
   * submit (`invalid` does not bubble: it is caught on the way down).
   */
  protected readonly clearFailure = {
    handleEvent: (): void => {
      this.failure = '';
    },
    capture: true,
  };

  /** Shows an error. */
  protected fail(err: unknown): void {
    this.failure = err instanceof RequestFailed || err instanceof Error ? err.message : String(err);
  }
}

/** A page that shows a list by pages: the page shown (from 1), and the way to show another. */
export abstract class ListPageElement extends PageElement {
  static override properties = { ...PageElement.properties, page: { state: true } };
  /** The page shown, counted from 1. */
  declare page: number;

  constructor() {
    super();
    this.page = 1;
  }

  #paging = 0;

  /**
   * Shows another page of the list and, once the last page asked for is shown, takes the focus to
   * the list (its scrolling region, or its heading when it is empty), so a keyboard user goes on
   * from the new rows rather than from the document's start.
   */
  protected go(page: number): void {
    this.page = page;
    const paging = ++this.#paging;
    void this.refresh()
      .then(() => (paging === this.#paging ? this.focusFirst(['.table[role="region"]', 'h1', 'h2']) : undefined))
      .catch((err) => this.fail(err));
  }
}
