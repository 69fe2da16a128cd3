/**
 * @module What the payer reads, as plain strings: amounts, status lines, safe links and the QR
 * payload. Pure and DOM-free, so the widget and the payer page's server-side HTML say the same.
 */
import type { CheckoutAsset, CheckoutTransaction, CheckoutView } from './checkout-view.ts';

/** Drops trailing fractional zeros of a decimal string ("0.01000000" → "0.01"); no float involved. */
export function trimAmount(amount: string): string {
  if (!amount.includes('.')) return amount;
  return amount.replace(/0+$/, '').replace(/\.$/, '');
}

/** An amount with its ticker, as wallets show it: "0.006 BTC". */
export function amountText(amount: string, asset: Pick<CheckoutAsset, 'short'>): string {
  return `${trimAmount(amount)} ${asset.short}`;
}

/**
 * Adds decimal strings exactly (through integers of the smallest unit, never a float) and renders
 * the sum with `decimals` fractional digits.
 */
export function sumAmounts(amounts: readonly string[], decimals: number): string {
  let total = 0n;
  for (const amount of amounts) {
    const [whole = '0', fraction = ''] = amount.split('.');
    total += BigInt(whole + fraction.padEnd(decimals, '0').slice(0, decimals));
  }
  const digits = total.toString().padStart(decimals + 1, '0');
  return decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/** Whether a decimal string is above zero. */
export function isPositive(amount: string): boolean {
  return /[1-9]/.test(amount);
}

/** The network's name for people ("tron" → "Tron"). */
export function networkName(network: string): string {
  return network.charAt(0).toUpperCase() + network.slice(1);
}

/** Whether some but not all of the amount has arrived in time. */
export function isPartlyPaid(view: Pick<CheckoutView, 'status' | 'amount' | 'amountDue'>): boolean {
  return view.status === 'OPEN' && view.amountDue !== view.amount && isPositive(view.amountDue);
}

/** A short title for the payment's state. */
export function statusTitle(view: CheckoutView): string {
  switch (view.status) {
    case 'OPEN':
      return isPartlyPaid(view) ? 'Partly paid' : 'Waiting for payment';
    case 'CONFIRMING':
      return 'Payment received';
    case 'COMPLETE':
      return 'Payment complete';
    case 'EXPIRED':
      return 'Payment expired';
  }
}

/** One or two sentences that tell the payer what happened and what to do. */
export function statusDetail(view: CheckoutView): string {
  const merchant = view.merchant.name;
  const received = amountText(view.totalReceivedAmount, view.asset);
  switch (view.status) {
    case 'OPEN':
      return isPartlyPaid(view)
        ? `${received} has arrived. Send the remaining ${amountText(view.amountDue, view.asset)} to the same address to complete the payment.`
        : `Send exactly ${amountText(view.amountDue, view.asset)} on the ${networkName(view.asset.network)} network to the address below.`;
    case 'CONFIRMING':
      return `The full amount has arrived. The ${networkName(view.asset.network)} network needs ${confirmationsText(view.confirmsNeeded)} before ${merchant} can accept it; this page updates by itself.`;
    case 'COMPLETE':
      return `${merchant} has received ${received}. Thank you!`;
    case 'EXPIRED': {
      if (!isPositive(view.totalReceivedAmount)) {
        return `This payment request expired. Do not send anything to this address; ask ${merchant} for a new payment link.`;
      }
      const sum = (late: boolean) => sumAmounts(view.transactions.filter((t) => t.late === late).map((t) => t.receivedAmount), view.asset.decimals);
      const onTime = sum(false);
      const late = sum(true);
      const arrived = [
        isPositive(onTime) ? `${amountText(onTime, view.asset)} arrived in time` : '',
        isPositive(late) ? `${amountText(late, view.asset)} ${isPositive(onTime) ? '' : 'arrived '}after it expired` : '',
      ]
        .filter(Boolean)
        .join(' and ');
      return `This request for ${amountText(view.amount, view.asset)} expired before the full amount arrived. ${arrived}: contact ${merchant} about it, and do not send more to this address.`;
    }
  }
}

/**
 * What to tell a payer whose transactions the network dropped before they confirmed (replaced,
 * double-spent or never mined): they no longer count, which is why more is asked for again.
 */
export function droppedText(dropped: readonly CheckoutTransaction[], view: Pick<CheckoutView, 'asset'>): string | undefined {
  if (dropped.length === 0) return undefined;
  const network = networkName(view.asset.network);
  const amounts = dropped.map((t) => amountText(t.receivedAmount, view.asset));
  return dropped.length === 1
    ? `The ${amounts[0]} sent earlier was dropped by the ${network} network before it confirmed, so it does not count.`
    : `The transactions of ${amounts.join(', ')} sent earlier were dropped by the ${network} network before they confirmed, so they do not count.`;
}

function confirmationsText(count: number): string {
  return count === 1 ? '1 confirmation' : `${count} confirmations`;
}

/** A transaction's progress: "1 of 2 confirmations" or "Confirmed". */
export function transactionProgress(transaction: CheckoutTransaction, confirmsNeeded: number): string {
  if (transaction.confirmations >= confirmsNeeded) return 'Confirmed';
  return `${transaction.confirmations} of ${confirmationsText(confirmsNeeded)}`;
}

/** A long transaction id shortened for display: first and last eight characters. */
export function shortTxnId(txnId: string): string {
  return txnId.length > 20 ? `${txnId.slice(0, 8)}…${txnId.slice(-8)}` : txnId;
}

/** Time left as "m:ss", or "h:mm:ss" from an hour up. */
export function durationText(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** Time left in words for screen readers: "59 minutes 32 seconds". */
export function durationWords(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const parts: Array<[number, string]> = [
    [Math.floor(seconds / 3600), 'hour'],
    [Math.floor((seconds % 3600) / 60), 'minute'],
    [seconds % 60, 'second'],
  ];
  const words = parts.filter(([n]) => n > 0).map(([n, unit]) => `${n} ${unit}${n === 1 ? '' : 's'}`);
  return words.length > 0 ? words.join(' ') : '0 seconds';
}

// Wallet URI schemes a link may open; anything else (javascript:, data:, a bare address) gets no link.
const WALLET_SCHEMES = new Set(['bitcoin', 'litecoin', 'ethereum', 'ripple', 'tron', 'xrpl', 'dogecoin', 'bitcoincash', 'solana']);

/** The payment URI if it is a wallet link worth offering, else undefined. */
export function walletHref(paymentUri: string): string | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(paymentUri)?.[1]?.toLowerCase();
  return scheme && WALLET_SCHEMES.has(scheme) ? paymentUri : undefined;
}

/** The URL if it is an absolute http or https URL (merchant-supplied links), else undefined. */
export function httpUrl(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

// BIP21 schemes whose bech32 addresses are case-insensitive, so the QR may upper-case them.
const UPPER_CASE_QR = /^(bitcoin|litecoin):((?:bc|tb|bcrt|ltc|tltc|rltc)1[02-9ac-hj-np-z]+)(\?.*)?$/i;

/**
 * The text the QR encodes: the payment URI, with scheme and bech32 address upper-cased for
 * bitcoin and litecoin so the encoder can use its denser alphanumeric mode (easier to scan).
 * Base58 and hex addresses are case-sensitive and stay as they are; so does the query.
 */
export function qrPayload(paymentUri: string): string {
  const match = UPPER_CASE_QR.exec(paymentUri);
  if (!match) return paymentUri;
  return `${match[1]!.toUpperCase()}:${match[2]!.toUpperCase()}${match[3] ?? ''}`;
}
