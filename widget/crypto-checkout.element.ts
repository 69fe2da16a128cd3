import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import {
  amountText,
  droppedText,
  durationText,
  durationWords,
  httpUrl,
  isPartlyPaid,
  networkName,
  priceNote,
  qrPayload,
  shortTxnId,
  statusDetail,
  statusTitle,
  transactionProgress,
  trimAmount,
  walletHref,
} from './checkout-format.ts';
import type { CheckoutTransaction, CheckoutView } from './checkout-view.ts';
import { CheckoutSyncController, type SyncProblem } from './controllers/checkout-sync.controller.ts';
import { CopyController } from './controllers/copy.controller.ts';
import { CountdownController } from './controllers/countdown.controller.ts';
import { styles } from './crypto-checkout.styles.ts';
import { checkoutEvent, type CopyField } from './events.ts';
import { ENGLISH, loadMessages } from './i18n/load-messages.ts';
import { directionOf, type Locale, lookupLocale, matchLocale } from './i18n/locales.ts';
import { formatDecimal, type Messages } from './i18n/messages.ts';
import { type QrSymbol, qrSymbol } from './qr-code.ts';

/** Where the API lives when `api-base` is not given: the origin that served this script. */
export const DEFAULT_API_BASE = `${new URL(import.meta.url).origin}/v2`;

// Below this many seconds the countdown is shown in the warning colour.
const SOON_SECONDS = 300;

/**
 * Shows a crypto payment to the payer and follows it live until it is paid or expires.
 *
 * Light-DOM children are shown until the first answer from the server arrives (the hosted page
 * puts its server-rendered payment there, so it reads the same with JavaScript off).
 *
 * @fires {CheckoutStatusChangeEvent} checkout-status-change - The server reports another status (also the first one learned).
 * @fires {CheckoutUpdateEvent} checkout-update - Extension: a new view was rendered, whatever changed in it (late funds on an EXPIRED payment, a refund, a confirmation).
 * @fires {CheckoutPaidEvent} checkout-paid - The payment is COMPLETE.
 * @fires {CheckoutExpiredEvent} checkout-expired - The payment is EXPIRED.
 * @fires {CheckoutErrorEvent} checkout-error - The payment cannot be shown (not found, unreachable, unreadable).
 * @fires {CheckoutCopyEvent} checkout-copy - The payer copied the amount, address or destination tag.
 * @slot - Shown while the payment loads.
 * @csspart base - The wrapper.
 * @csspart status - Status title and explanation.
 * @csspart test-network - The notice that the payment's network is simulated (no real funds move).
 * @csspart amount - Amount due with the asset's logo and name.
 * @csspart qr-code - The QR code of the payment URI.
 * @csspart address - The address field, and the destination tag field (also `dest-tag`).
 * @csspart copy-button - Every copy button.
 * @csspart timer - Time left to pay.
 * @csspart transactions - The received transactions.
 * @csspart return-link - The link back to the merchant.
 * @cssprop --checkout-accent - Links, buttons and focus rings.
 * @cssprop --checkout-accent-foreground - Text on accent-coloured buttons.
 * @cssprop --checkout-background - Card background.
 * @cssprop --checkout-surface - Background of fields and transactions.
 * @cssprop --checkout-foreground - Text colour.
 * @cssprop --checkout-muted - Secondary text colour.
 * @cssprop --checkout-border - Card border colour.
 * @cssprop --checkout-success - Paid and confirmed.
 * @cssprop --checkout-warning - Notices and the destination-tag warning.
 * @cssprop --checkout-danger - Expired, errors and the last minutes.
 * @cssprop --checkout-focus - Focus ring colour.
 * @cssprop --checkout-radius - Card corner radius.
 * @cssprop --checkout-font-family - Text font.
 * @cssprop --checkout-font-family-mono - Font of addresses and ids.
 * @cssprop --checkout-qr-size - Largest width of the QR code.
 * @cssprop --checkout-max-width - Largest width of the element.
 *
 * The language is the `lang` attribute's (one of en, es, pt-BR, fr, de, ru, tr, ar, zh-CN, ja, hi,
 * id, matched by BCP 47 lookup), else the browser's first supported one, else English; Arabic is
 * laid out right to left. Only the chosen language is downloaded.
 */
export class CryptoCheckout extends LitElement {
  static override styles = styles;

  static override properties = {
    paymentId: { type: String, attribute: 'payment-id' },
    apiBase: { type: String, attribute: 'api-base' },
    theme: { type: String, reflect: true },
    lang: { type: String, reflect: true },
    view: { state: true },
    messages: { state: true },
    loadedFor: { state: true },
    problem: { state: true },
    announcement: { state: true },
  };

  /** The payment to show: the `id` from POST /v2/payment. */
  declare paymentId: string;
  /** Base URL of the API, like "https://pay.example.com/v2"; defaults to this script's origin + /v2. */
  declare apiBase: string;
  /** Forces the light or dark palette; without it the element follows prefers-color-scheme. */
  declare theme: 'light' | 'dark' | undefined;
  /** The payer's language, like "ja" or "pt-BR"; changing it re-renders in that language. */
  declare lang: string;
  private declare view: CheckoutView | undefined;
  // The messages of the language shown, and the language they were loaded for.
  private declare messages: Messages;
  private declare loadedFor: Locale;
  private messagesFor: Locale = 'en';
  private declare problem: SyncProblem | undefined;
  private declare announcement: string;

  private readonly sync = new CheckoutSyncController(this, {
    view: (view) => void this.receive(view),
    problem: (problem) => void this.fail(problem),
    // Said once when updates stop (the notice stays shown until they resume), not on every retry.
    connection: (connection) => {
      if (connection === 'reconnecting' && this.view) this.announce(this.messages.reconnecting);
    },
  });
  private readonly countdown = new CountdownController(this, {
    elapsed: () => this.sync.refresh(),
    milestone: (mark) => this.announce(this.messages.timeLeftAnnouncement(durationWords(mark, this.messages.locale))),
  });
  private readonly clipboard = new CopyController(this);
  // Transactions listed earlier that later views no longer hold (dropped by the network).
  private dropped: CheckoutTransaction[] = [];
  // The countdown re-renders every second; the QR only changes with the payment URI.
  private qr: { text: string; symbol: QrSymbol } | undefined;

  constructor() {
    super();
    this.paymentId = '';
    this.apiBase = DEFAULT_API_BASE;
    this.announcement = '';
    this.messages = ENGLISH;
    this.loadedFor = 'en';
  }

  /** The language to show: the lang attribute's, else the browser's, else English. */
  private get locale(): Locale {
    const asked = this.lang ? lookupLocale(this.lang) : undefined;
    return asked ?? matchLocale(typeof navigator === 'undefined' ? [] : navigator.languages);
  }

  /** The payment as last reported by the server (read-only; replaced wholesale on every update). */
  get checkout(): CheckoutView | undefined {
    return this.view;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    const locale = this.locale;
    if (locale !== this.messagesFor) {
      this.messagesFor = locale;
      void loadMessages(locale).then((messages) => {
        // Another language may have been asked for while this one loaded.
        if (this.messagesFor !== locale) return;
        this.messages = messages;
        this.loadedFor = locale;
      });
    }
    if (changed.has('paymentId') || changed.has('apiBase')) {
      this.view = undefined;
      this.dropped = [];
      this.problem = undefined;
      this.countdown.stop();
      const base = (this.apiBase || DEFAULT_API_BASE).replace(/\/+$/, '');
      this.sync.follow(this.paymentId ? `${base}/checkout/${encodeURIComponent(this.paymentId)}` : undefined);
    }
  }

  private async receive(view: CheckoutView): Promise<void> {
    const previous = this.view;
    // A transaction that was listed and is gone was dropped by the network; say so for as long as
    // the payment is followed, or a payer who already paid sees more asked for with no reason.
    const gone = previous?.transactions.filter((old) => !view.transactions.some((t) => t.txnId === old.txnId)) ?? [];
    if (gone.length > 0) this.dropped = [...this.dropped, ...gone];
    this.view = view;
    this.problem = undefined;
    if (view.status === 'OPEN') this.countdown.start(view.expiresAt, view.serverTime);
    else this.countdown.stop();
    const m = this.messages;
    const change = previous ? changeMessage(previous, view, m) : undefined;
    const message = gone.length > 0 ? [droppedText(gone, view, m), change].filter(Boolean).join(' ') : change;
    if (message) this.announce(message);
    // Listeners see the new state rendered.
    await this.updateComplete;
    this.dispatchEvent(checkoutEvent('checkout-update', { checkout: view }));
    if (previous?.status === view.status) return;
    this.dispatchEvent(checkoutEvent('checkout-status-change', { status: view.status, previousStatus: previous?.status ?? null, checkout: view }));
    if (view.status === 'COMPLETE') this.dispatchEvent(checkoutEvent('checkout-paid', { checkout: view }));
    if (view.status === 'EXPIRED') this.dispatchEvent(checkoutEvent('checkout-expired', { checkout: view }));
  }

  private async fail(problem: SyncProblem): Promise<void> {
    const repeated = this.problem?.code === problem.code;
    this.problem = problem;
    if (repeated) return;
    if (problem.code !== 'network' || !this.view) this.announce(problemText(problem, this.messages).title);
    await this.updateComplete;
    this.dispatchEvent(checkoutEvent('checkout-error', { code: problem.code, message: problem.message }));
  }

  private announce(message: string): void {
    // Screen readers skip a repeat of the same words unless the region empties in between.
    this.announcement = '';
    void this.updateComplete.then(() => {
      this.announcement = message;
    });
  }

  private async handleCopy(field: CopyField, value: string): Promise<void> {
    const m = this.messages;
    if (await this.clipboard.copy(field, value)) {
      this.announce({ amount: m.amountCopied, address: m.addressCopied, destTag: m.destinationTagCopied }[field]);
      this.dispatchEvent(checkoutEvent('checkout-copy', { field, value }));
    } else {
      this.selectValue(field);
      this.announce(m.copyFailed);
    }
  }

  private selectValue(field: CopyField): void {
    const target = this.renderRoot.querySelector(`[data-value="${field}"]`);
    const selection = window.getSelection();
    if (target && selection) selection.selectAllChildren(target);
  }

  private handleRetry(): void {
    this.sync.refresh();
  }

  private qrFor(paymentUri: string): QrSymbol {
    const text = qrPayload(paymentUri);
    if (this.qr?.text !== text) this.qr = { text, symbol: qrSymbol(text) };
    return this.qr.symbol;
  }

  // The visible word is part of the accessible name ("Copy" in "Copy address"), in every language.
  private renderCopyButton(field: CopyField, value: string): TemplateResult {
    const m = this.messages;
    const copied = this.clipboard.copied === field;
    const label = copied
      ? { amount: m.amountCopied, address: m.addressCopied, destTag: m.destinationTagCopied }[field]
      : { amount: m.copyAmount, address: m.copyAddress, destTag: m.copyDestinationTag }[field];
    return html`<button type="button" class="copy" part="copy-button" aria-label=${label} ?data-copied=${copied} @click=${() => this.handleCopy(field, value)}>
      ${copied ? m.copied : m.copy}
    </button>`;
  }

  private renderHeader(view: CheckoutView): TemplateResult {
    const logo = httpUrl(view.merchant.logoUrl);
    return html`<div class="merchant">
      ${logo ? html`<img class="merchant-logo" src=${logo} alt="" referrerpolicy="no-referrer" @error=${hideImage} />` : nothing}
      <div class="merchant-text">
        <p class="merchant-name">${view.merchant.name}</p>
        ${view.invoice ? html`<p class="small merchant-invoice">${around(this.messages.invoice, view.invoice)}</p>` : nothing}
      </div>
    </div>`;
  }

  private renderStatus(title: string, detail: string, icon: TemplateResult): TemplateResult {
    return html`<div part="status" class="status">
      <span class="status-icon" aria-hidden="true">${icon}</span>
      <div>
        <h2 class="status-title">${title}</h2>
        <p class="status-detail">${detail}</p>
      </div>
    </div>`;
  }

  private renderPayable(view: CheckoutView): TemplateResult {
    const m = this.messages;
    const { asset } = view;
    // Copied and encoded exactly; shown in the language's digit grouping and decimal mark.
    const due = trimAmount(view.amountDue);
    const shownDue = formatDecimal(m.locale, due);
    const qr = this.qrFor(view.paymentUri);
    const wallet = walletHref(view.paymentUri);
    const network = networkName(asset.network);
    const price = priceNote(view, m);
    return html`
      <div part="amount" class="amount">
        <img class="asset-logo" src=${asset.logoUrl} alt="" @error=${hideImage} />
        <div class="amount-text">
          <span class="label">${isPartlyPaid(view) ? m.stillToPay : m.amountToPay}</span>
          <span class="amount-value" dir="ltr" data-length=${amountLength(shownDue)}>${shownDue} ${asset.short}</span>
          ${price?.kind === 'price' ? html`<span class="fiat-price" data-value="price">${price.text}</span>` : nothing}
          <span class="small">${m.assetOnNetwork(asset.name, network)}</span>
          ${price?.kind === 'order-total' ? html`<span class="small" data-value="order-total">${price.text}</span>` : nothing}
        </div>
        ${this.renderCopyButton('amount', due)}
      </div>
      <figure part="qr-code" class="qr">
        <svg role="img" aria-label=${m.qrLabel(`${shownDue} ${asset.short}`)} viewBox="0 0 ${qr.size} ${qr.size}" shape-rendering="crispEdges">
          <path fill="#000000" d=${qr.path}></path>
        </svg>
      </figure>
      ${wallet ? html`<a class="button primary" href=${wallet}>${m.openInWallet}</a>` : nothing}
      <div part="address" class="field">
        <span class="label">${m.addressOn(network)}</span>
        <code class="value" dir="ltr" data-value="address">${view.addressTo}</code>
        ${this.renderCopyButton('address', view.addressTo)}
      </div>
      ${view.destTag === null
        ? nothing
        : html`<div part="address dest-tag" class="field">
            <span class="label">${m.destinationTag}</span>
            <code class="value" dir="ltr" data-value="destTag">${view.destTag}</code>
            ${this.renderCopyButton('destTag', view.destTag)}
            <p class="field-note">${m.destinationTagNote}</p>
          </div>`}
      ${this.renderTimer()}
    `;
  }

  private renderTimer(): TemplateResult | typeof nothing {
    const seconds = this.countdown.secondsLeft;
    if (seconds === undefined) return nothing;
    if (seconds === 0) return html`<p part="timer" class="timer" role="timer" data-soon>${this.messages.timeUp}</p>`;
    return html`<p part="timer" class="timer" role="timer" ?data-soon=${seconds <= SOON_SECONDS}>
      <span>${this.messages.timeLeft}</span> <span class="timer-value" dir="ltr">${durationText(seconds)}</span>
    </p>`;
  }

  private renderTransactions(view: CheckoutView): TemplateResult | typeof nothing {
    if (view.transactions.length === 0) return nothing;
    return html`<section part="transactions" class="transactions" aria-labelledby="transactions-title">
      <h3 id="transactions-title" class="label">${this.messages.receivedHeading}</h3>
      <ul>
        ${view.transactions.map((txn) => this.renderTransaction(txn, view))}
      </ul>
    </section>`;
  }

  private renderTransaction(txn: CheckoutTransaction, view: CheckoutView): TemplateResult {
    const m = this.messages;
    const done = txn.confirmations >= view.confirmsNeeded;
    const dots = view.confirmsNeeded <= 12 ? Array.from({ length: view.confirmsNeeded }, (_, i) => i < txn.confirmations) : [];
    return html`<li class="txn">
      <span class="txn-amount" dir="ltr">${amountText(txn.receivedAmount, view.asset, m.locale)}</span>
      <span class="txn-progress" ?data-done=${done}>${transactionProgress(txn, view.confirmsNeeded, m)}</span>
      ${dots.length > 1 ? html`<span class="dots" aria-hidden="true">${dots.map((on) => html`<span class="dot" ?data-on=${on}></span>`)}</span>` : nothing}
      <span class="txn-id small">${m.transaction} <code dir="ltr" title=${txn.txnId}>${shortTxnId(txn.txnId)}</code></span>
      ${txn.late ? html`<span class="txn-late">${m.arrivedAfterExpiry}</span>` : nothing}
    </li>`;
  }

  private renderReturnLink(view: CheckoutView): TemplateResult | typeof nothing {
    const href = httpUrl(view.checkoutUrl);
    if (!href) return nothing;
    return html`<a class="button primary" part="return-link" href=${href}>${this.messages.returnTo(view.merchant.name)}</a>`;
  }

  private renderView(view: CheckoutView): TemplateResult {
    const m = this.messages;
    const title = statusTitle(view, m);
    const dropped = view.status === 'COMPLETE' ? undefined : droppedText(this.dropped, view, m);
    const detail = dropped ? `${dropped} ${statusDetail(view, m)}` : statusDetail(view, m);
    const reconnecting = this.sync.connection === 'reconnecting';
    return html`
      ${this.renderHeader(view)}
      ${this.renderStatus(title, detail, STATUS_ICONS[view.status])}
      ${view.testNetwork ? html`<p part="test-network" class="notice test-network">${m.testNetwork}</p>` : nothing}
      ${reconnecting ? html`<p class="notice">${m.reconnecting}</p>` : nothing}
      ${view.status === 'OPEN' ? this.renderPayable(view) : nothing}
      ${this.renderTransactions(view)}
      ${view.status === 'COMPLETE' || view.status === 'EXPIRED' ? this.renderReturnLink(view) : nothing}
    `;
  }

  private renderProblem(problem: SyncProblem): TemplateResult {
    const { title, detail } = problemText(problem, this.messages);
    return html`
      ${this.renderStatus(title, detail, ICON_ALERT)}
      ${problem.code === 'not-found' ? nothing : html`<button type="button" class="primary" @click=${this.handleRetry}>${this.messages.tryAgain}</button>`}
    `;
  }

  override render(): TemplateResult {
    const { view, problem } = this;
    const showProblem = problem && (problem.code !== 'network' || !view);
    // Until the chosen language has loaded, the light-DOM content (the hosted page's, already in it) stays.
    const ready = this.loadedFor === this.messagesFor;
    const state = showProblem ? 'error' : ready && view ? view.status : 'loading';
    const locale = this.messages.locale;
    return html`<div part="base" class="base" data-status=${state} lang=${locale} dir=${directionOf(locale)}>
      ${!ready ? html`<slot></slot>` : showProblem ? this.renderProblem(problem) : view ? this.renderView(view) : html`<slot><p class="loading">${this.messages.loading}</p></slot>`}
      <div class="visually-hidden" role="status" aria-live="polite" aria-atomic="true">${this.announcement}</div>
    </div>`;
  }
}

/** A message with a value isolated from the text around it (an invoice stays left to right in Arabic). */
function around(message: (value: string) => string, value: string): TemplateResult {
  const [before = '', after = ''] = message('\u0000').split('\u0000');
  return html`${before}<bdi>${value}</bdi>${after}`;
}

function hideImage(event: Event): void {
  (event.target as HTMLElement).hidden = true;
}

function problemText(problem: SyncProblem, m: Messages): { title: string; detail: string } {
  switch (problem.code) {
    case 'not-found':
      return { title: m.notFoundTitle, detail: m.notFoundDetail };
    case 'network':
      return { title: m.networkTitle, detail: m.networkDetail };
    case 'invalid-response':
      return { title: m.invalidTitle, detail: m.invalidDetail };
  }
}

/** What changed between two views of the same payment, in words for the live region. */
function changeMessage(previous: CheckoutView, next: CheckoutView, m: Messages): string | undefined {
  if (previous.status !== next.status || previous.totalReceivedAmount !== next.totalReceivedAmount) {
    return `${statusTitle(next, m)}. ${statusDetail(next, m)}`;
  }
  const progress = next.transactions
    .filter((txn) => previous.transactions.find((old) => old.txnId === txn.txnId)?.confirmations !== txn.confirmations)
    .map((txn) => `${amountText(txn.receivedAmount, next.asset, m.locale)}: ${transactionProgress(txn, next.confirmsNeeded, m)}.`);
  return progress.length > 0 ? progress.join(' ') : undefined;
}

// Longer amounts get a smaller type, so a 320 px screen keeps most of them on one line (they wrap
// rather than overflow beyond that).
const LONG_AMOUNT = 12;
const LONGER_AMOUNT = 18;

function amountLength(shown: string): 'short' | 'long' | 'longer' {
  return shown.length > LONGER_AMOUNT ? 'longer' : shown.length > LONG_AMOUNT ? 'long' : 'short';
}

const ICON_CLOCK = html`<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"><circle cx="12" cy="12" r="9"></circle><path d="M12 7v5l3 2"></path></svg>`;
const ICON_CHECK = html`<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><circle cx="12" cy="12" r="9"></circle><path d="m8 12 3 3 5-6"></path></svg>`;
const ICON_ALERT = html`<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"><circle cx="12" cy="12" r="9"></circle><path d="M12 7v6M12 16.5v.5"></path></svg>`;

const STATUS_ICONS = { OPEN: ICON_CLOCK, CONFIRMING: ICON_CLOCK, COMPLETE: ICON_CHECK, EXPIRED: ICON_ALERT } as const;
