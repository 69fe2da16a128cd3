/** The page for an address the dashboard has no page at: says so, inside the app, with the way back. */
import { html } from 'lit';
import { PageElement } from '../page-element.ts';

/** The "Page not found" page; the document's title says so while it is shown. */
export class NotFoundPage extends PageElement {
  #titleBefore = '';

  async refresh(): Promise<void> {}

  override connectedCallback(): void {
    super.connectedCallback();
    this.#titleBefore = document.title;
    document.title = `Page not found · ${this.#titleBefore}`;
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    document.title = this.#titleBefore;
  }

  override render() {
    return html`
      <h1 tabindex="-1">Page not found</h1>
      <p>The dashboard has no page at <code>${location.pathname}</code>.</p>
      <p><a href="/dashboard/payments">Go to the payments list</a></p>
    `;
  }
}
customElements.define('not-found-page', NotFoundPage);
