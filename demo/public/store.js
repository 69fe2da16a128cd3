/**
 * The demo store's only script (no inline scripts: the pages' CSP is script-src 'self').
 *
 * On an order page it follows the embedded <crypto-checkout>: each status change and the
 * checkout-paid event make it ask the store's server for the order's state. The server decides
 * from GET /v2/payment/:id; this script only shows what the server says, so a forged event in the
 * browser can never mark an order paid. It also sends "Simulate payment" without leaving the page.
 */
document.documentElement.classList.add('js');

const order = document.querySelector('[data-order-id]');
if (order instanceof HTMLElement) followOrder(order);

/** @param {HTMLElement} order */
function followOrder(order) {
  const statusUrl = order.dataset.statusUrl ?? '';
  const statusBox = document.getElementById('order-status');
  const thankYou = document.getElementById('thank-you');
  const checkout = order.querySelector('crypto-checkout');
  const simulateForm = document.getElementById('simulate-form');
  const simulateResult = document.getElementById('simulate-result');
  const simulateButton = simulateForm?.querySelector('button');

  /** @param {string} field @param {string} text */
  function setField(field, text) {
    const node = order.querySelector(`[data-field="${field}"]`);
    if (node) node.textContent = text;
  }

  /** @param {{state: string, label: string, message: string, paymentStatus: string, received: string, checkedAt: string}} answer */
  function show(answer) {
    if (statusBox) statusBox.dataset.state = answer.state;
    setField('label', answer.label);
    setField('message', answer.message);
    setField('payment-status', answer.paymentStatus);
    setField('received', trimAmount(answer.received));
    setField('checked', `${answer.checkedAt.slice(11, 19)} UTC`);
    order.querySelector('[data-field="checked"]')?.setAttribute('datetime', answer.checkedAt);
    if (thankYou) thankYou.hidden = answer.state !== 'paid';
    if (simulateButton && answer.paymentStatus !== 'OPEN') simulateButton.disabled = true;
  }

  // One check at a time; events that arrive meanwhile ask for one more check afterwards.
  let running = false;
  let again = false;
  async function check() {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        const response = await fetch(statusUrl, { headers: { Accept: 'application/json' }, cache: 'no-store' });
        if (!response.ok) throw new Error(`the store answered ${response.status}`);
        show(await response.json());
      } while (again);
    } catch (err) {
      setField('message', `Could not ask the store's server for this order (${err instanceof Error ? err.message : String(err)}). Reload the page to try again.`);
    } finally {
      running = false;
    }
  }

  // Every view the element renders (funds seen late leave the status EXPIRED): the record may have moved.
  checkout?.addEventListener('checkout-update', () => void check());
  // Only a cue: the thank-you appears when the server's record says COMPLETE, not because of this event.
  checkout?.addEventListener('checkout-paid', () => void check());

  if (simulateForm instanceof HTMLFormElement && simulateResult) {
    simulateForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (simulateButton) simulateButton.disabled = true;
      simulateResult.textContent = "Sending the payer's transaction…";
      try {
        const response = await fetch(simulateForm.action, { method: 'POST', headers: { Accept: 'application/json' } });
        const answer = await response.json();
        if (!response.ok) throw new Error(answer?.error?.message ?? `the store answered ${response.status}`);
        const seconds = Math.round(answer.blockIntervalMs / 1000);
        simulateResult.textContent =
          `Sent ${trimAmount(answer.amount)} in transaction ${String(answer.txnId).slice(0, 12)}…; ` +
          `mining ${answer.blocks} block${answer.blocks === 1 ? '' : 's'}, one every ${seconds} s.`;
      } catch (err) {
        simulateResult.textContent = `The payment could not be simulated: ${err instanceof Error ? err.message : String(err)}`;
        if (simulateButton) simulateButton.disabled = false;
      }
    });
  }
}

/** "0.01800000 BTC" → "0.018 BTC" @param {string} text */
function trimAmount(text) {
  return text.replace(/^(\d+)\.(\d*?)0+\b/, (_, whole, fraction) => (fraction ? `${whole}.${fraction}` : whole));
}
