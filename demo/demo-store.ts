/**
 * @module The demo store's use cases. Every call to the payment service goes through the typed
 * client over HTTP, exactly as a merchant's backend would make it; the keys stay on this server.
 */
import { randomBytes } from 'node:crypto';
import { type AssetBalance, type AssetInfo, CheckoutApiError, type MerchantClient, type Payment, type PaymentStatus, type Withdrawal } from '../client/index.ts';
import { findProduct, isPriced, orderInvoice, priceIn, PRODUCTS, type Product } from './catalogue.ts';
import { orderOf, type Order } from './fulfilment.ts';
import type { PayerSimulator, SimulatedPayment } from './payer-simulator.ts';
import { StoreError, toStoreError } from './store-error.ts';

/** The catalogue page's data: products and the assets the store can price. */
export interface Catalogue {
  products: readonly Product[];
  assets: AssetInfo[];
  /** The service's current USD rate per asset ("BTC:bitcoin"), for those that have one; empty offline. */
  usdRates: ReadonlyMap<string, string>;
}

/** The orders page's data. */
export interface Overview {
  payments: Payment[];
  /** True when there are more payments than shown. */
  morePayments: boolean;
  withdrawals: Withdrawal[];
  moreWithdrawals: boolean;
  balances: AssetBalance[];
}

/** How many records of each kind the orders page shows. */
export const OVERVIEW_LIMIT = 50;

/** Creates the store; `client()` throws a StoreError while the demo merchant's keys are missing. */
export function createDemoStore(deps: { client: () => MerchantClient; simulator: PayerSimulator | undefined; returnUrl: (invoice: string) => string; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());

  async function call<T>(work: (client: MerchantClient) => Promise<T>): Promise<T> {
    try {
      return await work(deps.client());
    } catch (err) {
      throw toStoreError(err);
    }
  }

  async function fetchOrder(paymentId: string): Promise<Order> {
    const payment = await call((client) => client.getPayment(paymentId));
    const order = orderOf(payment, now().toISOString());
    if (!order) throw new StoreError(404, 'Order not found', 'That payment is not an order of this store.');
    return order;
  }

  const pricedAssets = async () => (await call((client) => client.assets())).filter(isPriced);

  async function catalogue(): Promise<Catalogue> {
    // What an order will be converted at, to show beside each coin; none when no source answers
    // (the store then prices in the coin at its fixed demo rates, and says so). Both asked at once.
    const [assets, rates] = await Promise.all([pricedAssets(), call((client) => client.rates('USD')).catch(() => undefined)]);
    const usdRates = new Map((rates?.data ?? []).map((r) => [`${r.asset.short}:${r.asset.network}`, r.rate]));
    return { products: PRODUCTS, assets, usdRates };
  }

  return {
    /** The products, and the assets the service accepts that the store has a price for. */
    catalogue,

    /** Creates the payment for one product in one asset ("BTC:bitcoin"); returns the new record. */
    async placeOrder(sku: unknown, assetKey: unknown): Promise<Payment> {
      const product = typeof sku === 'string' ? findProduct(sku) : undefined;
      if (!product) throw new StoreError(400, 'Choose a product', 'That product is not in the shop. Go back and pick one of the products listed.');
      const asset = (await pricedAssets()).find((a) => `${a.short}:${a.network}` === assetKey);
      if (!asset) throw new StoreError(400, 'Choose how to pay', 'Pick one of the listed coins to pay with.');
      const invoice = orderInvoice(product, randomBytes(4).toString('hex').toUpperCase());
      const order = { asset: { short: asset.short, network: asset.network }, invoice, checkoutUrl: deps.returnUrl(invoice) };
      return call(async (client) => {
        // Priced in dollars: the service converts at the market rate and locks it. Offline (the
        // simulated networks need no internet, the rate sources do) no source answers, and the
        // store falls back to its own fixed demo rates, priced in the asset; the order page says so.
        try {
          return await client.createPayment({ ...order, price: { amount: product.priceUsd, currency: 'USD' } });
        } catch (err) {
          if (!(err instanceof CheckoutApiError && (err.code === 'rates-unavailable' || err.code === 'unsupported-currency'))) throw err;
          return client.createPayment({ ...order, amount: priceIn(product, asset) });
        }
      });
    },

    /** The order behind a payment, as its server-side record says now. */
    order: fetchOrder,

    /** The order whose invoice this is (the hosted page sends the payer back with it). */
    async orderByInvoice(invoice: string): Promise<Order> {
      const page = await call((client) => client.listPayments({ invoices: [invoice], limit: 1 }));
      const payment = page.data[0];
      if (!payment) throw new StoreError(404, 'Order not found', 'No order of this store has that number.');
      return fetchOrder(payment.id);
    },

    /** Whether the simulated networks are there to play the payer. */
    canSimulate: deps.simulator !== undefined,

    /** Plays the payer of an order: sends what is due and has the blocks mined. */
    async simulatePayment(paymentId: string): Promise<SimulatedPayment> {
      if (!deps.simulator) throw new StoreError(404, 'No simulator', 'Payments can only be simulated when the service runs with SIMULATOR=on.');
      const simulator = deps.simulator;
      const { payment } = await fetchOrder(paymentId);
      try {
        return await simulator.pay(payment);
      } catch (err) {
        throw new StoreError(409, 'Cannot simulate this payment', err instanceof Error ? err.message : String(err));
      }
    },

    /** The newest payments (optionally of one status) and withdrawals, and the balances. */
    async overview(status: PaymentStatus | undefined): Promise<Overview> {
      return call(async (client) => {
        const [payments, withdrawals, balances] = await Promise.all([
          take(client.payments({ ...(status ? { statuses: [status] } : {}), limit: OVERVIEW_LIMIT }), OVERVIEW_LIMIT),
          take(client.withdrawals({ limit: OVERVIEW_LIMIT }), OVERVIEW_LIMIT),
          client.getBalance(),
        ]);
        return { payments: payments.records, morePayments: payments.more, withdrawals: withdrawals.records, moreWithdrawals: withdrawals.more, balances };
      });
    },
  };
}

/** The demo store. */
export type DemoStore = ReturnType<typeof createDemoStore>;

async function take<T>(records: AsyncGenerator<T, void, undefined>, limit: number): Promise<{ records: T[]; more: boolean }> {
  const taken: T[] = [];
  for await (const record of records) {
    // Leaving the loop closes the iterator, so no further page is fetched.
    if (taken.length === limit) return { records: taken, more: true };
    taken.push(record);
  }
  return { records: taken, more: false };
}
