/** @module Why a fiat price cannot be converted: domain refusals the one error handler maps to statuses. */
import { InvalidInput, Unavailable } from '../shared/errors.ts';

/** No source quotes this asset in this currency (every source answered, none lists the pair): 400 unsupported-currency. */
export class UnsupportedCurrency extends InvalidInput {
  override name = 'UnsupportedCurrency';
  constructor(
    readonly currency: string,
    readonly short: string,
  ) {
    super('unsupported-currency', `No rate source quotes ${short} in ${currency}. Give the amount in another currency, or in ${short} itself.`);
  }
}

/** No fresh quote for the pair (sources down, slow or answering garbage): 503 rates-unavailable with Retry-After. */
export class RatesUnavailable extends Unavailable {
  override name = 'RatesUnavailable';
  constructor(
    readonly currency: string,
    readonly short: string,
    readonly sources: readonly string[],
    /** When the next background refresh may have a quote. */
    retryAfterSeconds: number,
  ) {
    super(
      'rates-unavailable',
      `No fresh ${currency} rate for ${short}: none of the rate sources (${sources.join(', ')}) gave a usable quote recently. ` +
        `Try again in ${retryAfterSeconds} seconds; nothing was created. Amounts given in ${short} itself keep working.`,
      retryAfterSeconds,
    );
  }
}
