/**
 * @module Reading a create-payment request: the schema's checks and the asset's together, into the
 * typed input the use case takes. Kept apart from the schemas, which the typed client shares.
 */
import { fieldsOf, parseCollecting } from '../shared/validation.ts';
import type { Asset, AssetRegistry } from '../networks/asset-registry.ts';
import { resolveRequestAsset } from '../networks/asset-rules.ts';
import type { FieldError } from '../shared/errors.ts';
import { AMOUNT_PATTERN, fractionDigits, parseAmount } from '../shared/money.ts';
import { CreatePaymentInput } from './payment.schema.ts';

/** A create request as the use case takes it: the checked fields and the served asset they name. */
export interface CreatePaymentRequest {
  input: CreatePaymentInput;
  asset: Asset;
}

/**
 * Why an amount below the network's dust limit is refused: many wallets will not send an output
 * that small (Bitcoin Core relays none below 546 satoshi to a legacy address), and no refund of it
 * could be paid out.
 */
export function dustLimitText(registry: AssetRegistry, asset: Asset): string {
  return `${asset.dustLimit} ${asset.short}, ${registry.network(asset.network).displayName}'s dust limit: many wallets will not send less, and nothing this small could be refunded`;
}

/**
 * Reads a create request's body: every bad field at once, the schema's and the asset's (decimal
 * places, an unserved pair) together, as one InvalidInput; else the typed request.
 */
export function parseCreatePayment(registry: AssetRegistry, body: unknown): CreatePaymentRequest {
  const parsed = parseCollecting(CreatePaymentInput, body);
  const errors: FieldError[] = [...parsed.errors];
  // Priced in the asset (amount) or in a fiat currency (price): exactly one of them.
  const sent = fieldsOf(body);
  const hasAmount = sent.amount !== undefined;
  const hasPrice = sent.price !== undefined && sent.price !== null;
  if (hasAmount && hasPrice) errors.push({ path: 'price', message: 'must not be sent with amount: price the payment in the asset (amount) or in a fiat currency (price), not both' });
  if (!hasAmount && !hasPrice && typeof body === 'object' && body !== null && !Array.isArray(body)) {
    errors.unshift({ path: 'amount', message: 'is required (or price, to price the payment in a fiat currency)' });
  }
  const asset = resolveRequestAsset(registry, body, errors, (named) => {
    const amount = sent.amount;
    if (typeof amount !== 'string' || !AMOUNT_PATTERN.test(amount) || fractionDigits(amount) > named.decimals) return [];
    return parseAmount(amount).lt(named.dustLimit) ? [{ path: 'amount', message: `must be at least ${dustLimitText(registry, named)}` }] : [];
  });
  return { input: parsed.data!, asset };
}
