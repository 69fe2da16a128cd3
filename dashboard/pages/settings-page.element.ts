/** Settings: the shop's name, site, logo and e-mail, as payers see them. */
import { html } from 'lit';
import { call } from '../api.ts';
import { formFields } from '../format.ts';
import { PageElement } from '../page-element.ts';

interface Profile {
  id: string;
  name: string;
  siteUrl: string | null;
  logoUrl: string | null;
  email: string | null;
}

/** Fired (bubbling) when the settings are saved; `detail` is the shop as saved, so the app can show its new name. */
export const SETTINGS_SAVED = 'settings-saved';
declare global {
  interface HTMLElementEventMap {
    [SETTINGS_SAVED]: CustomEvent<Profile>;
  }
}

/** The settings page. */
export class SettingsPage extends PageElement {
  static override properties = { ...PageElement.properties, profile: { state: true } };
  declare profile: Profile | undefined;

  async refresh(): Promise<void> {
    this.profile = await call<Profile>('GET', '/settings');
  }

  #save(event: Event): void {
    const f = formFields(event);
    const orNull = (v: string | undefined) => (v && v.trim() ? v.trim() : null);
    void this.act('Settings saved.', async () => {
      const saved = await call<Profile>('PUT', '/settings', { name: f.name, siteUrl: orNull(f.siteUrl), logoUrl: orNull(f.logoUrl), email: orNull(f.email) });
      this.dispatchEvent(new CustomEvent(SETTINGS_SAVED, { bubbles: true, detail: saved }));
    });
  }

  override render() {
    const p = this.profile;
    return html`
      <h1 tabindex="-1">Settings</h1>
      ${p
        ? html`<form class="stacked" @input=${this.clearFailure} @invalid=${this.clearFailure} @submit=${(e: Event) => this.#save(e)}>
            <fieldset ?disabled=${!this.canChange}>
              <legend>The shop as payers see it</legend>
              <label>Name <input name="name" required maxlength="200" .value=${p.name} /></label>
              <label>Site URL <input name="siteUrl" .value=${p.siteUrl ?? ''} /></label>
              <label>Logo URL <input name="logoUrl" type="url" .value=${p.logoUrl ?? ''} /></label>
              <label>E-mail <input name="email" type="email" .value=${p.email ?? ''} /></label>
              ${this.canChange ? html`<button type="submit">Save settings</button>` : html`<p>Only an owner can change these.</p>`}
            </fieldset>
          </form>`
        : ''}
      <p role="status">${this.message}</p>
      ${this.failure ? html`<p role="alert" class="failure">${this.failure}</p>` : ''}
    `;
  }
}
customElements.define('settings-page', SettingsPage);
