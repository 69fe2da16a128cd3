/**
 * @module The store owner's payouts: a withdrawal from the balance to an address, then approve or
 * cancel it, all through the typed client. What the owner typed wrong comes back as the API's own
 * field errors, so the form can say what to fix.
 */
import { randomBytes } from 'node:crypto';
import { CheckoutApiError, type ErrorDetail, type MerchantClient, type Withdrawal } from '../client/index.ts';
import { toStoreError } from './store-error.ts';

/** What the payout form sends, as typed. */
export interface PayoutForm {
  /** "BTC:bitcoin". */
  asset: string;
  amount: string;
  addressTo: string;
  destTag: string;
}

/** A payout that was opened, or what the owner has to fix. */
export type PayoutResult = { ok: true; withdrawal: Withdrawal } | { ok: false; message: string; details: ErrorDetail[] };

/** Reads the payout form from a urlencoded body; a missing field is an empty string. */
export function readPayoutForm(body: Record<string, unknown>): PayoutForm {
  const field = (name: string) => (typeof body[name] === 'string' ? (body[name] as string).trim() : '');
  return { asset: field('asset'), amount: field('amount'), addressTo: field('addressTo'), destTag: field('destTag') };
}

/** Creates the payout use cases over the store's client. */
export function createPayouts(client: () => MerchantClient) {
  async function call<T>(work: (c: MerchantClient) => Promise<T>): Promise<T> {
    try {
      return await work(client());
    } catch (err) {
      throw toStoreError(err);
    }
  }

  return {
    /** Opens a withdrawal (the API reserves the amount); field errors come back for the form. */
    async request(form: PayoutForm): Promise<PayoutResult> {
      const [short, network] = form.asset.split(':');
      if (!short || !network) return { ok: false, message: 'Choose the coin to pay out.', details: [{ path: 'asset', message: 'is required' }] };
      try {
        const withdrawal = await client().createWithdrawal({
          amount: form.amount,
          asset: { short, network },
          addressTo: form.addressTo,
          invoice: `PAYOUT-${randomBytes(4).toString('hex').toUpperCase()}`,
          ...(form.destTag === '' ? {} : { destTag: form.destTag }),
        });
        return { ok: true, withdrawal };
      } catch (err) {
        if (err instanceof CheckoutApiError && [400, 422].includes(err.status)) return { ok: false, message: err.message, details: [...err.details] };
        throw toStoreError(err);
      }
    },

    /** Sends an OPEN withdrawal through its network. */
    approve: (id: string) => call((c) => c.approveWithdrawal(id)),

    /** Cancels an OPEN withdrawal; its reservation returns to the balance. */
    cancel: (id: string) => call((c) => c.cancelWithdrawal(id)),
  };
}

/** The payout use cases. */
export type Payouts = ReturnType<typeof createPayouts>;
