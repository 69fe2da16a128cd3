/**
 * @module Copying a value for the payer: the async Clipboard API where the page may use it, the
 * older execCommand path where it may not (plain-http pages, some embedded frames), and which
 * button shows "Copied" for a moment afterwards.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { CopyField } from '../events.ts';

/** How long a button says "Copied". */
export const COPIED_FEEDBACK_MS = 2_000;

/** Tracks the last successful copy for its host. */
export class CopyController implements ReactiveController {
  /** The field whose button currently says "Copied". */
  copied: CopyField | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  hostDisconnected(): void {
    clearTimeout(this.timer);
    this.copied = undefined;
  }

  /** Copies `value`; true when the clipboard took it. */
  async copy(field: CopyField, value: string): Promise<boolean> {
    const ok = (await writeWithClipboardApi(value)) || writeWithExecCommand(value);
    clearTimeout(this.timer);
    this.copied = ok ? field : undefined;
    this.host.requestUpdate();
    if (ok) {
      this.timer = setTimeout(() => {
        this.copied = undefined;
        this.host.requestUpdate();
      }, COPIED_FEEDBACK_MS);
    }
    return ok;
  }
}

async function writeWithClipboardApi(value: string): Promise<boolean> {
  if (!navigator.clipboard?.writeText) return false;
  try {
    await navigator.clipboard.writeText(value);
    return true;
  } catch {
    return false;
  }
}

function deepActiveElement(): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

function writeWithExecCommand(value: string): boolean {
  const active = deepActiveElement();
  const area = document.createElement('textarea');
  area.value = value;
  area.setAttribute('readonly', '');
  area.setAttribute('aria-hidden', 'true');
  area.className = 'crypto-checkout-copy-buffer';
  // Off-screen through CSSOM, which a strict style-src allows (a style attribute it would not).
  area.style.setProperty('position', 'fixed');
  area.style.setProperty('top', '-1000px');
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  if (active instanceof HTMLElement) active.focus();
  return ok;
}
