/**
 * @module The "simulate payment" helper: plays the payer and the miners on the service's
 * simulated networks (POST /v2/dev/transactions and /v2/dev/blocks, which exist only with
 * SIMULATOR on), paced so a person can watch the payment go from waiting to confirming to complete.
 */
import type { Payment } from '../client/index.ts';
import { httpFetch } from './http-fetch.ts';

/** What the simulation started. */
export interface SimulatedPayment {
  txnId: string;
  /** What the payer sent, like "0.00018000 BTC". */
  amount: string;
  /** Blocks that will be mined, one every `blockIntervalMs`. */
  blocks: number;
  blockIntervalMs: number;
}

/** Why a simulation could not start. */
export class SimulationError extends Error {
  override name = 'SimulationError';
}

/** Creates the simulator for the service whose API is at `apiBase` (".../v2"). */
export function createPayerSimulator(options: { apiBase: string; blockIntervalMs: number; onBackgroundError: (err: unknown) => void }) {
  const { apiBase, blockIntervalMs, onBackgroundError } = options;

  async function post(path: string, body: object): Promise<Record<string, unknown>> {
    const response = await httpFetch(`${apiBase}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok) {
      const error = answer.error as { message?: string } | undefined;
      throw new SimulationError(`POST /v2${path} answered ${response.status}: ${error?.message ?? 'no error message'}`);
    }
    return answer;
  }

  function mineOneBlockAfterAnother(network: string, remaining: number): void {
    if (remaining === 0) return;
    const timer = setTimeout(() => {
      post('/dev/blocks', { network, count: 1 }).then(
        () => mineOneBlockAfterAnother(network, remaining - 1),
        onBackgroundError,
      );
    }, blockIntervalMs);
    // A pending block must not keep a stopping service alive.
    timer.unref();
  }

  return {
    /**
     * Sends what is still due from a payer's wallet (unconfirmed, so the payment first shows as
     * confirming), then mines the blocks the network needs, one at a time.
     */
    async pay(payment: Payment): Promise<SimulatedPayment> {
      if (payment.status !== 'OPEN') throw new SimulationError(`The payment is ${payment.status}; only an OPEN payment can be paid.`);
      const sent = await post('/dev/transactions', {
        address: payment.addressTo,
        amount: payment.amountDue,
        asset: { short: payment.asset.short, network: payment.asset.network },
        ...(payment.destTag === null ? {} : { destTag: payment.destTag }),
        confirmations: 0,
      });
      mineOneBlockAfterAnother(payment.asset.network, payment.confirmsNeeded);
      return { txnId: String(sent.txnId), amount: `${payment.amountDue} ${payment.asset.short}`, blocks: payment.confirmsNeeded, blockIntervalMs };
    },
  };
}

/** The payer simulator. */
export type PayerSimulator = ReturnType<typeof createPayerSimulator>;
