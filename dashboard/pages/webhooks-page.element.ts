/** Webhooks: endpoints with their delivery logs; owners add (secret shown once), remove and redeliver. */
import { html } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { call } from '../api.ts';
import { confirmAction } from '../confirm-dialog.ts';
import { formFields, timeText } from '../format.ts';
import { PageElement } from '../page-element.ts';

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  disabled: boolean;
  disabledReason: string | null;
}

interface Delivery {
  id: string;
  type: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  createdAt: string;
}

/** What a redelivery did: the endpoint's answer, which may be a refusal. */
function redelivered(delivery: Delivery): string {
  if (delivery.statusCode !== null && delivery.statusCode >= 200 && delivery.statusCode < 300) return `Sent again: the endpoint answered ${delivery.statusCode}.`;
  if (delivery.statusCode !== null) return `Sent again, but the endpoint answered ${delivery.statusCode}: it has not taken the event.`;
  return `Sent again, but no answer came${delivery.error ? ` (${delivery.error})` : ''}: the endpoint has not taken the event.`;
}

/** The webhooks page. */
export class WebhooksPage extends PageElement {
  static override properties = { ...PageElement.properties, endpoints: { state: true }, log: { state: true }, secret: { state: true } };
  declare endpoints: Endpoint[];
  declare log: { endpoint: Endpoint; deliveries: Delivery[] } | undefined;
  declare secret: string;

  constructor() {
    super();
    this.endpoints = [];
    this.secret = '';
  }

  async refresh(): Promise<void> {
    this.endpoints = (await call<{ data: Endpoint[] }>('GET', '/webhooks')).data;
    // The open delivery log follows its endpoint, and closes once the endpoint is gone.
    const shown = this.log && this.endpoints.find((e) => e.id === this.log!.endpoint.id);
    if (shown) await this.#open(shown);
    else this.log = undefined;
  }

  async #open(endpoint: Endpoint): Promise<void> {
    this.log = { endpoint, deliveries: (await call<{ data: Delivery[] }>('GET', `/webhooks/${endpoint.id}/deliveries?limit=50`)).data };
  }

  // The deliveries are drawn below every endpoint: the focus goes to their heading, so a keyboard
  // or screen reader user lands on what the button opened.
  #showDeliveries(endpoint: Endpoint): void {
    void this.#open(endpoint)
      .then(() => this.focusFirst(['#deliveries-heading']))
      .catch((err) => this.fail(err));
  }

  // After a removal the focus goes to the next endpoint's heading (the previous one's after the
  // last), or to the list's heading once none is left.
  async #remove(endpoint: Endpoint): Promise<void> {
    const sure = await confirmAction({
      title: 'Remove this endpoint?',
      facts: [['Endpoint', endpoint.url]],
      note: 'Deliveries to it stop, and its signing secret cannot be recovered: adding it again gives a new one.',
      confirm: 'Remove endpoint',
      keep: 'Keep it',
      destructive: true,
    });
    if (!sure) return;
    const at = this.endpoints.indexOf(endpoint);
    const near = [this.endpoints[at + 1], this.endpoints[at - 1]].filter((e) => e !== undefined);
    await this.act('Endpoint removed.', () => call('DELETE', `/webhooks/${endpoint.id}`), [...near.map((e) => `li[data-id="${CSS.escape(e.id)}"] h3`), '#endpoints-heading']);
  }

  #add(event: Event): void {
    const { url } = formFields(event);
    void this.act('Endpoint added. Copy its signing secret now: it is not shown again.', async () => {
      this.secret = (await call<{ secret: string }>('POST', '/webhooks', { url })).secret;
      (event.target as HTMLFormElement).reset();
    });
  }

  override render() {
    return html`
      <h1 tabindex="-1">Webhooks</h1>
      ${this.canChange
        ? html`<form class="stacked" @input=${this.clearFailure} @invalid=${this.clearFailure} @submit=${(e: Event) => this.#add(e)}>
            <label>Endpoint URL <input name="url" type="url" required placeholder="https://shop.example/hooks" /></label>
            <button type="submit">Add endpoint</button>
          </form>`
        : ''}
      <p role="status">${this.message}</p>
      ${this.secret ? html`<p class="secret">Signing secret: <code>${this.secret}</code></p>` : ''}
      ${this.failure ? html`<p role="alert" class="failure">${this.failure}</p>` : ''}
      <h2 id="endpoints-heading" tabindex="-1">Endpoints</h2>
      ${this.endpoints.length === 0 ? html`<p>No endpoints.</p>` : ''}
      <ul class="cards">
        ${repeat(
          this.endpoints,
          (e) => e.id,
          (e) => html`<li data-id=${e.id}>
            <h3 class="mono" tabindex="-1">${e.url}</h3>
            <p>${e.disabled ? `Disabled: ${e.disabledReason}` : 'Enabled'} · ${e.events.length} event types</p>
            <button type="button" @click=${() => this.#showDeliveries(e)}>Deliveries<span class="visually-hidden"> to ${e.url}</span></button>
            ${this.canChange ? html`<button type="button" class="secondary" @click=${() => void this.#remove(e)}>Remove<span class="visually-hidden"> ${e.url}</span></button>` : ''}
          </li>`,
        )}
      </ul>
      ${this.log
        ? html`<h2 id="deliveries-heading" tabindex="-1">Deliveries to <span class="mono">${this.log.endpoint.url}</span></h2>
            <div class="table" role="region" aria-label="Deliveries" tabindex="0"><table>
              <thead><tr><th scope="col">Event</th><th scope="col">Attempt</th><th scope="col">Answer</th><th scope="col">When</th>${this.canChange ? html`<th scope="col">Actions</th>` : ''}</tr></thead>
              <tbody>${this.log.deliveries.map(
                (d) => html`<tr><td>${d.type}</td><td>${d.attempt}</td><td>${d.statusCode ?? d.error ?? ''}</td><td>${timeText(d.createdAt)}</td>
                  ${this.canChange ? html`<td><button type="button" @click=${() => this.act(redelivered, () => call<Delivery>('POST', `/webhooks/${this.log!.endpoint.id}/deliveries/${d.id}/redeliver`))}>Redeliver<span class="visually-hidden"> ${d.type} attempt ${d.attempt}</span></button></td>` : ''}</tr>`,
              )}</tbody></table></div>`
        : ''}
    `;
  }
}
customElements.define('webhooks-page', WebhooksPage);
