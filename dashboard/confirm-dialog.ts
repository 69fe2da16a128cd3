/** A confirmation for actions that move money or cannot be undone: a modal native <dialog>. */
import { html, render } from 'lit';

/** What a confirmation asks. */
export interface Confirmation {
  /** The question, which names the dialog ("Approve withdrawal inv-1?"). */
  title: string;
  /** What the action acts on, as label and value (amount, asset, address). */
  facts?: Array<[string, string]>;
  /** What follows from confirming. */
  note: string;
  /** The confirming button's text ("Approve and send"). */
  confirm: string;
  /** The safe choice's text, focused first ("Go back"). */
  keep: string;
  /** Whether confirming destroys something (a red confirming button). */
  destructive?: boolean;
}

/**
 * Asks with a modal dialog (showModal: the page behind is inert) whose focus starts on the safe
 * choice; Escape or the safe choice answers false. The browser gives the focus back on close.
 */
export function confirmAction(asked: Confirmation): Promise<boolean> {
  const dialog = document.createElement('dialog');
  dialog.className = 'confirm';
  dialog.setAttribute('aria-labelledby', 'confirm-title');
  dialog.setAttribute('aria-describedby', 'confirm-note');
  render(
    html`<form method="dialog">
      <h2 id="confirm-title">${asked.title}</h2>
      ${asked.facts ? html`<dl class="confirm-facts">${asked.facts.map(([label, value]) => html`<div><dt>${label}</dt><dd class="mono">${value}</dd></div>`)}</dl>` : ''}
      <p id="confirm-note">${asked.note}</p>
      <div class="choices">
        <button value="keep" class="secondary" autofocus>${asked.keep}</button>
        <button value="confirm" class=${asked.destructive ? 'danger' : ''}>${asked.confirm}</button>
      </div>
    </form>`,
    dialog,
  );
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        resolve(dialog.returnValue === 'confirm');
        dialog.remove();
      },
      { once: true },
    );
    dialog.showModal();
  });
}
