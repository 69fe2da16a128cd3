/** Request and response schemas of withdrawals and balances. */
import { z } from 'zod';
import { AmountInput, AssetInput, AssetOutput, Customer, FilterValue, filterValues, MerchantOutput, pageQuery, Timestamp } from '../shared/common.schema.ts';
import { plainString, text } from '../shared/validation.ts';

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
