/** API keys: owners rotate them; the new pair is shown once, here, and never sent again. */
import { html } from 'lit';
import { call } from '../api.ts';
import { confirmAction } from '../confirm-dialog.ts';
import { formFields, timeText } from '../format.ts';
import { PageElement } from '../page-element.ts';

interface Rotated {
  apiKey: string;
  secretKey: string;
  previousKeysValidUntil: string;
}

/** The API keys page. */
export class KeysPage extends PageElement {
  static override properties = { ...PageElement.properties, rotated: { state: true } };
  declare rotated: Rotated | undefined;

  async refresh(): Promise<void> {}

  async #rotate(event: Event): Promise<void> {
    const { grace } = formFields(event);
    const sure = await confirmAction({
      title: 'Rotate the API keys?',
      note: `A new pair is made and shown once. The keys in use now stop working ${Number(grace) === 0 ? 'at once' : `in ${grace} hours`}: every system that uses them needs the new pair by then.`,
      confirm: 'Rotate keys',
      keep: 'Keep the keys',
      destructive: true,
    });
    if (!sure) return;
    await this.act('Keys rotated. Copy the new pair now: it is not shown again.', async () => {
      this.rotated = await call<Rotated>('POST', '/keys/rotate', { graceSeconds: Number(grace) * 3600 });
    });
  }

  override render() {
    return html`
      <h1 tabindex="-1">API keys</h1>
      <p>The service keeps only a hash of the API key and a sealed secret key; neither is ever shown again after a rotation.</p>
      ${this.canChange
        ? html`<form class="stacked" @input=${this.clearFailure} @invalid=${this.clearFailure} @submit=${(e: Event) => void this.#rotate(e)}>
            <label>Old keys keep working for (hours) <input name="grace" type="number" min="0" max="2160" required value="24" /></label>
            <button type="submit">Rotate keys</button>
          </form>`
        : html`<p>Only an owner can rotate keys.</p>`}
      <p role="status">${this.message}</p>
      ${this.failure ? html`<p role="alert" class="failure">${this.failure}</p>` : ''}
      ${this.rotated
        ? html`<dl class="facts secret">
            <div><dt>API key</dt><dd><code>${this.rotated.apiKey}</code></dd></div>
            <div><dt>Secret key</dt><dd><code>${this.rotated.secretKey}</code></dd></div>
            <div><dt>Old keys work until</dt><dd>${timeText(this.rotated.previousKeysValidUntil)}</dd></div>
          </dl>`
        : ''}
    `;
  }
}
customElements.define('keys-page', KeysPage);
