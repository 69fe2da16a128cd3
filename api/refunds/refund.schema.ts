/** Request and response schemas of refunds (contract section 17); the OpenAPI document is generated from these. */
import { z } from 'zod';
import { AmountInput, AssetOutput, FilterValue, filterValues, pageQuery, Timestamp } from '../shared/common.schema.ts';
import { plainString, text } from '../shared/validation.ts';
import { PriceInput } from '../rates/rates.schema.ts';
import { REFUND_STATUSES } from './refund.store.ts';

/** A payout address as a request gives it; whether it is one of the payment's network is checked by the use case. */
const AddressInput = plainString().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

/** A destination tag as a request gives it. */
export const DestTagInput = z
  .string()
  .regex(/^[0-9]{1,10}$/, 'must be a whole number from 0 to 4294967295, in a string')
  .refine((s) => Number(s) <= 4294967295, 'must be a whole number from 0 to 4294967295, in a string');

/** Body of POST /v2/payment/:id/refund. */
export const CreateRefundInput = z
  .strictObject({
    amount: AmountInput.optional().meta({
      description:
        'In the payment\'s asset. Left out (and no price): what the payer is owed (overpaidAmount for OVERPAID; everything received for UNDERPAID, PAID_LATE or EXPIRED with funds); required on an exactly paid payment. The network fee comes out of it.',
    }),
    price: PriceInput.optional().meta({
      description: 'Instead of amount: a fiat amount, converted to the payment\'s asset at the current rate (no spread), rounded up to its decimals.',
    }),
    addressTo: AddressInput.optional().meta({
      description: 'Where to send it, an address of the payment\'s network. Left out: the refund waits for the payer to give one through its claimUrl.',
    }),
    destTag: DestTagInput.nullish().meta({ description: 'Destination tag; required with addressTo on networks that route by tag (XRP), refused on others.' }),
    reason: text(500).nullish().meta({ description: 'The merchant\'s note, up to 500 characters; never shown to the payer.' }),
  })
  .refine((body) => body.amount === undefined || body.price === undefined, { path: ['price'], message: 'must not come with amount: give one or the other' })
  .meta({ id: 'CreateRefund' });
/** A validated refund creation request. */
export type CreateRefundInput = z.output<typeof CreateRefundInput>;

/** Body of the approve and cancel actions: an empty object, signed like every POST. */
export const RefundActionInput = z.strictObject({}).meta({ id: 'RefundAction' });

/** Query of GET /v2/refund (after the array encodings are normalised). */
export const ListRefundsQuery = z.object({
  ids: filterValues('Refund ids.', FilterValue),
  paymentIds: filterValues('Ids of the payments refunded.', FilterValue),
  statuses: filterValues('Statuses.', z.enum(REFUND_STATUSES, { error: `each value must be one of ${REFUND_STATUSES.join(', ')}` })),
  ...pageQuery(1),
});
/** A validated refund list query. */
export type ListRefundsQuery = z.output<typeof ListRefundsQuery>;

/** A payer's destination, from the claim or request form. */
export const DestinationInput = z.object({
  addressTo: AddressInput,
  destTag: z.union([z.literal('').transform(() => null), DestTagInput]).nullish(),
});
/** A validated destination. */
export type DestinationInput = z.output<typeof DestinationInput>;

/** The refund record. */
export const RefundOutput = z
  .object({
    id: z.uuid(),
    paymentId: z.uuid(),
    amount: z.string().meta({ description: 'Taken from the merchant\'s balance; the payer receives it minus the network fee.' }),
    asset: AssetOutput,
    addressTo: z.string().nullable().meta({ description: 'Null until the payer gives one (AWAITING_ADDRESS).' }),
    destTag: z.string().nullable(),
    status: z.enum(REFUND_STATUSES),
    claimUrl: z.url().meta({
      description:
        'The payer\'s bearer link (PUBLIC_URL/refund?id=…&token=…): where they give an address while the refund awaits one, and follow it to COMPLETE. Give it to the payer only.',
    }),
    withdrawalId: z.uuid().nullable().meta({ description: 'The withdrawal that pays it out, once it has an address and is approved.' }),
    txnId: z.string().nullable().meta({ description: 'The payout transaction, once broadcast.' }),
    reason: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    failureReason: z.string().optional().meta({ description: 'Extension: present while an APPROVED refund\'s payout cannot be sent yet, saying why (as on its withdrawal).' }),
  })
  .meta({ id: 'Refund' });
/** The refund record as the API returns it. */
export type RefundOutput = z.output<typeof RefundOutput>;
