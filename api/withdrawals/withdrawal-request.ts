/**
 * @module Reading a create-withdrawal request: the schema's checks and the asset's (destination,
 * tag, minimum) together, into the typed input the use case takes. Kept apart from the schemas,
 * which the typed client shares.
 */
import { fieldsOf, parseCollecting } from '../shared/validation.ts';
import type { AddressCodec } from '../networks/address-codecs.ts';
import type { Asset, AssetRegistry } from '../networks/asset-registry.ts';
import { resolveRequestAsset } from '../networks/asset-rules.ts';
import { type FieldError, InvalidInput, invalidFields } from '../shared/errors.ts';
import type { AddressStore } from '../networks/address.store.ts';
import { AMOUNT_PATTERN, formatAmount, parseAmount } from '../shared/money.ts';
import { CreateWithdrawalInput } from './withdrawal.schema.ts';

/**
 * The checks of a payout destination on an asset's network: an address of that network (checksum
 * included, never its zero address) and a tag exactly where the network routes by one. A refund's
 * destination is checked by the same rules.
 */
export function destinationErrors(codec: AddressCodec, asset: Asset, addressTo: unknown, destTag: unknown): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof addressTo === 'string' && addressTo !== '' && !codec.isValid(addressTo)) {
    errors.push({ path: 'addressTo', message: `is not a valid ${asset.network} address (checksum included)` });
  } else if (typeof addressTo === 'string' && addressTo !== '' && codec.isZero(addressTo)) {
    errors.push({ path: 'addressTo', message: `is the zero address of ${asset.network}: no one holds its key, so a payout there would be lost` });
  }
  const hasTag = destTag !== undefined && destTag !== null;
  if (codec.requiresTag && !hasTag) errors.push({ path: 'destTag', message: `is required on ${asset.network}: exchanges and shared wallets route by tag` });
  if (!codec.requiresTag && hasTag) errors.push({ path: 'destTag', message: `must not be set: ${asset.network} has no destination tags` });
  return errors;
}

/**
 * Refuses a payout to one of this installation's own receiving addresses, in any valid spelling:
 * the payout would come back as a payment (credited to the merchant again, or to nobody), and the
 * payer or merchant it was meant for would get nothing.
 */
export async function refuseOwnAddress(addresses: Pick<AddressStore, 'isReceiving'>, codec: AddressCodec, asset: Asset, addressTo: string): Promise<void> {
  if (!(await addresses.isReceiving(asset.network, codec.canonical(addressTo)))) return;
  throw invalidFields([ownAddressError(asset)]);
}

function ownAddressError(asset: Asset): FieldError {
  return { path: 'addressTo', message: `${OWN_ADDRESS} on ${asset.network}: a payout there would come back as a payment, not reach anyone` };
}

const OWN_ADDRESS = "is one of this installation's own receiving addresses";

/** Whether an error is `refuseOwnAddress`'s (pages that word it for a payer tell it apart from a malformed address). */
export function isOwnAddressRefusal(err: unknown): boolean {
  return err instanceof InvalidInput && err.details?.[0]?.path === 'addressTo' && err.details[0].message.startsWith(OWN_ADDRESS);
}

/** The checks of a withdrawal body that depend on its asset: destination, tag and fee. */
function assetErrors(codec: AddressCodec, asset: Asset, body: unknown): FieldError[] {
  const { addressTo, destTag, amount } = fieldsOf(body);
  const errors = destinationErrors(codec, asset, addressTo, destTag);
  if (typeof amount === 'string' && AMOUNT_PATTERN.test(amount) && parseAmount(amount).lt(parseAmount(asset.minWithdrawal))) {
    errors.push({
      path: 'amount',
      message: `must be at least the minimum withdrawal of ${formatAmount(asset.minWithdrawal, asset.decimals)} ${asset.short} (the network fee of ${formatAmount(asset.withdrawalFee, asset.decimals)} plus the smallest payout the network relays)`,
    });
  }
  return errors;
}

/** A create request as the use case takes it: the checked fields and the served asset they name. */
export interface CreateWithdrawalRequest {
  input: CreateWithdrawalInput;
  asset: Asset;
}

/** Reads a create request's body: every bad field at once (the schema's and the asset's), else the typed request. */
export function parseCreateWithdrawal(registry: AssetRegistry, body: unknown): CreateWithdrawalRequest {
  const { data, errors } = parseCollecting(CreateWithdrawalInput, body);
  const asset = resolveRequestAsset(registry, body, errors, (named) => assetErrors(registry.codec(named.network), named, body));
  return { input: data!, asset };
}

/**
 * Reads a create request as `parseCreateWithdrawal` does; when other fields are bad, an address that
 * is one of this installation's own (a database check, otherwise made by the use case once the rest
 * is valid) is named among them, so every bad field is told at once.
 */
export async function readCreateWithdrawal(registry: AssetRegistry, addresses: Pick<AddressStore, 'isReceiving'>, body: unknown): Promise<CreateWithdrawalRequest> {
  try {
    return parseCreateWithdrawal(registry, body);
  } catch (err) {
    if (!(err instanceof InvalidInput) || err.code !== 'validation-failed' || !err.details || err.details.some((d) => d.path === 'addressTo')) throw err;
    const { asset: named, addressTo } = fieldsOf(body);
    const { short, network } = (typeof named === 'object' && named !== null ? named : {}) as Record<string, unknown>;
    const found = typeof short === 'string' && typeof network === 'string' ? registry.find(short, network) : undefined;
    if (!found || !registry.isServed(found) || typeof addressTo !== 'string') throw err;
    const codec = registry.codec(found.network);
    if (!codec.isValid(addressTo) || !(await addresses.isReceiving(found.network, codec.canonical(addressTo)))) throw err;
    throw invalidFields([...err.details, ownAddressError(found)]);
  }
}
