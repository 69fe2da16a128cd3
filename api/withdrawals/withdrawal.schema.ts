/** Request and response schemas of withdrawals and balances. */
import { z } from 'zod';
import { AmountInput, AssetInput, AssetOutput, Customer, FilterValue, filterValues, MerchantOutput, pageQuery, Timestamp } from '../http/common.schema.ts';
import { parseCollecting, plainString, text } from '../http/validate.ts';
import type { AddressCodec } from '../networks/address-codecs.ts';
import type { Asset, AssetRegistry } from '../networks/asset-registry.ts';
import { resolveRequestAsset } from '../networks/asset-rules.ts';
import type { FieldError } from '../shared/errors.ts';
import { AMOUNT_PATTERN, formatAmount, parseAmount } from '../shared/money.ts';

/** Every withdrawal status. */
export const WITHDRAWAL_STATUSES = ['CANCELLED', 'OPEN', 'APPROVED', 'COMPLETE'] as const;
/** A withdrawal status. */
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];

/** Body of POST /v2/withdrawal. */
export const CreateWithdrawalInput = z
  .strictObject({
    amount: AmountInput.meta({ description: 'Amount taken from the balance; the recipient gets it minus the network fee.' }),
    asset: AssetInput,
    addressTo: plainString()
      .min(1, 'must not be empty')
      .max(200, 'must be at most 200 characters')
      .meta({ description: 'Destination address, valid for the asset\'s network (checksum checked); a zero address, whose payout would be burnt, is refused.' }),
    customer: Customer.nullish(),
    destTag: z
      .string()
      .regex(/^[0-9]{1,10}$/, 'must be a whole number from 0 to 4294967295, in a string')
      .refine((s) => Number(s) <= 4294967295, 'must be a whole number from 0 to 4294967295, in a string')
      .nullish()
      .meta({ description: 'Destination tag; required on networks that route by tag (XRP), refused on others.' }),
    invoice: text(200).meta({ description: 'The merchant\'s reference, unique per merchant: a repeat is 409 duplicate-invoice.' }),
  })
  .meta({ id: 'CreateWithdrawal' });
/** A validated withdrawal creation request. */
export type CreateWithdrawalInput = z.output<typeof CreateWithdrawalInput>;

/** The checks of a withdrawal body that depend on its asset: destination, tag and fee. */
function assetErrors(codec: AddressCodec, asset: Asset, body: unknown): FieldError[] {
  const { addressTo, destTag, amount } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const errors: FieldError[] = [];
  if (typeof addressTo === 'string' && addressTo !== '' && !codec.isValid(addressTo)) {
    errors.push({ path: 'addressTo', message: `is not a valid ${asset.network} address (checksum included)` });
  } else if (typeof addressTo === 'string' && addressTo !== '' && codec.isZero(addressTo)) {
    errors.push({ path: 'addressTo', message: `is the zero address of ${asset.network}: no one holds its key, so a payout there would be lost` });
  }
  const hasTag = destTag !== undefined && destTag !== null;
  if (codec.requiresTag && !hasTag) errors.push({ path: 'destTag', message: `is required on ${asset.network}: exchanges and shared wallets route by tag` });
  if (!codec.requiresTag && hasTag) errors.push({ path: 'destTag', message: `must not be set: ${asset.network} has no destination tags` });
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

/** Body of the approve and cancel actions: an empty object, signed like every POST. */
export const WithdrawalActionInput = z.strictObject({}).meta({ id: 'WithdrawalAction' });

/** Query of GET /v2/withdrawal. */
export const ListWithdrawalsQuery = z.object({
  txnIds: filterValues('Network transaction ids of the payouts.', FilterValue),
  ids: filterValues('Withdrawal ids.', FilterValue),
  invoices: filterValues('Merchant invoices.', FilterValue),
  statuses: filterValues(
    'Statuses.',
    z.enum(WITHDRAWAL_STATUSES, { error: `each value must be one of ${WITHDRAWAL_STATUSES.join(', ')}` }),
  ),
  ...pageQuery(0),
});
/** A validated withdrawal list query. */
export type ListWithdrawalsQuery = z.output<typeof ListWithdrawalsQuery>;

/** The withdrawal record. */
export const WithdrawalOutput = z
  .object({
    id: z.uuid(),
    txnId: z.string().nullable().meta({ description: 'Network transaction id; null until the payout is broadcast.' }),
    amount: z.string(),
    receivedAmount: z.string().meta({ description: 'What the recipient receives: amount minus the network fee.' }),
    asset: AssetOutput,
    addressTo: z.string(),
    addressFrom: z.string().nullable().meta({ description: 'Sending address; null until the payout is broadcast.' }),
    destTag: z.string().nullable(),
    status: z.enum(WITHDRAWAL_STATUSES),
    customer: Customer.nullable(),
    merchant: MerchantOutput,
    invoice: z.string(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    fee: z.string().meta({ description: 'Extension: the network fee taken from amount.' }),
    confirmations: z.number().int().min(0).meta({ description: 'Extension: confirmations of the payout transaction, counted up to the network\'s confirmations needed.' }),
    failureReason: z
      .string()
      .optional()
      .meta({ description: 'Extension: present while an APPROVED withdrawal cannot be sent yet (the payout wallet cannot cover it, or this installation holds no signing key), saying why; it goes out once it can.' }),
  })
  .meta({ id: 'Withdrawal' });
/** The withdrawal record as the API returns it. */
export type WithdrawalOutput = z.output<typeof WithdrawalOutput>;

/** Response of GET /v2/balance. */
export const BalanceOutput = z
  .object({
    data: z.array(
      z.object({
        asset: AssetOutput,
        available: z.string().meta({ description: 'What can be withdrawn now.' }),
        reserved: z.string().meta({ description: 'Held by OPEN and APPROVED withdrawals not yet sent.' }),
      }),
    ),
  })
  .meta({ id: 'Balances' });
