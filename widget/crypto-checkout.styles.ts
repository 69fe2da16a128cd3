import { css } from 'lit';

// Dark palette defaults, used for theme="dark" and for prefers-color-scheme: dark without theme="light".
const dark = css`
  color-scheme: dark;
  --_background: var(--checkout-background, #16181d);
  --_surface: var(--checkout-surface, #22262e);
  --_foreground: var(--checkout-foreground, #eceff3);
  --_muted: var(--checkout-muted, #a9b1bd);
  --_border: var(--checkout-border, #3d434e);
  --_accent: var(--checkout-accent, #9ab8ff);
  --_accent-foreground: var(--checkout-accent-foreground, #0c1222);
  --_success: var(--checkout-success, #7ad694);
  --_warning: var(--checkout-warning, #f2c06b);
  --_danger: var(--checkout-danger, #ff9b93);
  --_focus: var(--checkout-focus, #9ab8ff);
`;

/**
 * Public custom properties (`--checkout-*`) are read once, here on :host, into private `--_*`
 * ones; the rest of the sheet reads only the private ones. Colours are chosen for WCAG 2.2 AA
 * text contrast in both palettes.
 */
export const styles = css`
  :host {
    color-scheme: light;
    --_background: var(--checkout-background, #ffffff);
    --_surface: var(--checkout-surface, #f3f5f8);
    --_foreground: var(--checkout-foreground, #1a1d23);
    --_muted: var(--checkout-muted, #555e6b);
    --_border: var(--checkout-border, #cfd5de);
    --_accent: var(--checkout-accent, #1d4ed8);
    --_accent-foreground: var(--checkout-accent-foreground, #ffffff);
    --_success: var(--checkout-success, #15692d);
    --_warning: var(--checkout-warning, #8a4a00);
    --_danger: var(--checkout-danger, #b42318);
    --_focus: var(--checkout-focus, #1d4ed8);
    --_radius: var(--checkout-radius, 12px);
    /* The boxes inside the card (fields, buttons, the QR's frame) follow its corners: 8px of the default 12px. */
    --_radius-inner: calc(var(--_radius) * 2 / 3);
    --_font: var(--checkout-font-family, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif);
    --_mono: var(--checkout-font-family-mono, ui-monospace, 'SF Mono', Menlo, Consolas, monospace);
    --_qr-size: var(--checkout-qr-size, 14rem);

    display: block;
    box-sizing: border-box;
    max-inline-size: var(--checkout-max-width, 28rem);
    font-family: var(--_font);
    font-size: 1rem;
    line-height: 1.45;
    color: var(--_foreground);
  }
  :host([theme='dark']) {
    ${dark}
  }
  @media (prefers-color-scheme: dark) {
    :host(:not([theme='light'])) {
      ${dark}
    }
  }
  :host([hidden]) {
    display: none;
  }
  *,
  *::before,
  *::after {
    box-sizing: inherit;
  }
  [hidden] {
    display: none !important;
  }

  .base {
    display: grid;
    /* One column no wider than the card: a long amount wraps inside it instead of widening it. */
    grid-template-columns: minmax(0, 1fr);
    gap: 1rem;
    padding: 1.25rem;
    background: var(--_background);
    color: var(--_foreground);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
  }
  h2,
  h3,
  p,
  ul,
  figure {
    margin: 0;
  }

  .merchant {
    display: flex;
    align-items: center;
    gap: 0.75rem;
    min-inline-size: 0;
  }
  .merchant-logo {
    inline-size: 2.5rem;
    block-size: 2.5rem;
    border-radius: var(--_radius-inner);
    object-fit: contain;
    flex: none;
  }
  .merchant-text {
    min-inline-size: 0;
  }
  .merchant-name,
  .merchant-invoice {
    overflow-wrap: anywhere;
  }
  .merchant-name {
    font-weight: 600;
  }
  .small,
  .label {
    font-size: 0.875rem;
    color: var(--_muted);
  }

  .status {
    display: flex;
    gap: 0.75rem;
    align-items: flex-start;
  }
  .status-icon {
    flex: none;
    inline-size: 1.75rem;
    block-size: 1.75rem;
    color: var(--_accent);
  }
  .status-icon svg {
    inline-size: 100%;
    block-size: 100%;
  }
  [data-status='COMPLETE'] .status-icon {
    color: var(--_success);
  }
  [data-status='EXPIRED'] .status-icon,
  [data-status='error'] .status-icon {
    color: var(--_danger);
  }
  .status-title {
    font-size: 1.25rem;
    line-height: 1.3;
  }

  .amount {
    display: flex;
    align-items: center;
    gap: 0.75rem;
    flex-wrap: wrap;
  }
  .asset-logo {
    inline-size: 2rem;
    block-size: 2rem;
    flex: none;
  }
  /*
   * The amount is never covered: the Copy button stays beside it only while the whole amount fits on
   * the line, and moves below it otherwise. Only the amount counts for that (the label and the asset
   * line wrap within whatever width the amount leaves), and an amount wider than the card wraps.
   */
  .amount-text {
    display: grid;
    flex: 1 1 auto;
    min-inline-size: 0;
    /* Never wider than the line beside the logo (2rem + the gap), so the logo stays with it. */
    max-inline-size: calc(100% - 2.75rem);
  }
  .amount-text > :not(.amount-value) {
    contain: inline-size;
  }
  .amount .copy {
    margin-inline-start: auto;
  }
  .amount-value {
    font-size: 1.5rem;
    font-weight: 700;
    overflow-wrap: anywhere;
  }
  .amount-value[data-length='long'] {
    font-size: 1.125rem;
  }
  .amount-value[data-length='longer'] {
    font-size: 1rem;
  }
  .fiat-price {
    font-weight: 600;
  }

  .qr {
    justify-self: center;
    inline-size: min(100%, var(--_qr-size));
    padding: 0.5rem;
    background: #ffffff;
    border-radius: var(--_radius-inner);
    line-height: 0;
  }
  .qr svg {
    inline-size: 100%;
    block-size: auto;
  }

  .field {
    display: grid;
    grid-template-columns: minmax(0, 1fr) auto;
    gap: 0.25rem 0.75rem;
    align-items: center;
    padding: 0.75rem;
    background: var(--_surface);
    border-radius: var(--_radius-inner);
  }
  .field .label {
    grid-column: 1 / -1;
  }
  /* Addresses, tags, amounts and ids stay left to right (and copy as they are) inside right-to-left text. */
  [dir='ltr'],
  bdi {
    unicode-bidi: isolate;
  }
  .value {
    font-family: var(--_mono);
    font-size: 0.9375rem;
    overflow-wrap: anywhere;
    user-select: all;
  }
  .field-note {
    grid-column: 1 / -1;
    font-size: 0.875rem;
    color: var(--_warning);
    font-weight: 600;
  }

  button,
  .button {
    font: inherit;
    font-size: 0.9375rem;
    font-weight: 600;
    min-block-size: 2.75rem;
    padding: 0.5rem 1rem;
    border-radius: var(--_radius-inner);
    cursor: pointer;
    text-decoration: none;
    text-align: center;
  }
  .copy {
    min-inline-size: 5.5rem;
    border: 1px solid var(--_accent);
    background: var(--_background);
    color: var(--_accent);
  }
  .copy[data-copied] {
    border-color: var(--_success);
    color: var(--_success);
  }
  .primary {
    display: block;
    border: 1px solid var(--_accent);
    background: var(--_accent);
    color: var(--_accent-foreground);
  }
  button:focus-visible,
  a:focus-visible {
    outline: 3px solid var(--_focus);
    outline-offset: 2px;
  }

  .timer {
    display: flex;
    justify-content: space-between;
    gap: 0.5rem;
    color: var(--_muted);
  }
  .timer-value {
    font-variant-numeric: tabular-nums;
    font-weight: 600;
    color: var(--_foreground);
  }
  .timer[data-soon] .timer-value {
    color: var(--_danger);
  }

  .notice {
    padding: 0.75rem;
    border-radius: var(--_radius-inner);
    border-inline-start: 4px solid var(--_warning);
    background: var(--_surface);
  }
  .test-network {
    font-weight: 600;
  }

  .transactions ul {
    list-style: none;
    padding: 0;
    display: grid;
    gap: 0.5rem;
    margin-block-start: 0.25rem;
  }
  .txn {
    display: flex;
    flex-wrap: wrap;
    justify-content: space-between;
    gap: 0.125rem 0.75rem;
    padding: 0.625rem 0.75rem;
    background: var(--_surface);
    border-radius: var(--_radius-inner);
  }
  .txn-amount {
    font-weight: 600;
    overflow-wrap: anywhere;
  }
  .txn-progress[data-done] {
    color: var(--_success);
    font-weight: 600;
  }
  .txn-id,
  .txn-late {
    flex-basis: 100%;
  }
  .txn-id code {
    font-family: var(--_mono);
  }
  .txn-late {
    color: var(--_warning);
    font-weight: 600;
    font-size: 0.875rem;
  }
  .dots {
    flex-basis: 100%;
    display: flex;
    gap: 0.25rem;
  }
  .dot {
    inline-size: 0.625rem;
    block-size: 0.625rem;
    border-radius: 50%;
    border: 1px solid var(--_muted);
  }
  .dot[data-on] {
    background: var(--_success);
    border-color: var(--_success);
  }

  .loading {
    padding: 1rem 0;
    color: var(--_muted);
  }

  .visually-hidden {
    position: absolute;
    inline-size: 1px;
    block-size: 1px;
    padding: 0;
    margin: -1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
    border: 0;
  }

  @media (prefers-reduced-motion: no-preference) {
    [data-status='OPEN'] .status-icon,
    [data-status='CONFIRMING'] .status-icon {
      animation: pulse 2s ease-in-out infinite;
    }
    .copy {
      transition:
        color 0.2s,
        border-color 0.2s;
    }
  }
  @keyframes pulse {
    50% {
      opacity: 0.55;
    }
  }
`;
