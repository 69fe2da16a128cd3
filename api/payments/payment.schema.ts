/** Request and response schemas of payments; the OpenAPI document is generated from these. */
import { z } from 'zod';
import { AmountInput, AssetInput, AssetOutput, Customer, FilterValue, filterValues, MerchantOutput, pageQuery, Timestamp } from '../shared/common.schema.ts';
import { httpUrl, text } from '../shared/validation.ts';
import { PriceInput, PriceOutput, RateOutput } from '../rates/rates.schema.ts';
import { PAYMENT_EXCEPTIONS } from './payment-exception.ts';
import { PAYMENT_STATUSES } from './payment-status.ts';

/** Body of POST /v2/payment. */
export const CreatePaymentInput = z
  .strictObject({
    amount: AmountInput.optional().meta({ description: 'Decimal amount of the asset in a string, at most its `decimals` fractional digits, at least the network’s dust limit (Bitcoin 0.00000546, Litecoin 0.0000546). Required unless `price` is given; never with it.', examples: ['0.015'] }),
    price: PriceInput.nullish(),
    asset: AssetInput,
    customer: Customer.nullish(),
    invoice: text(200).nullish().meta({ description: 'The merchant\'s own reference, up to 200 characters.' }),
    checkoutUrl: httpUrl().nullish().meta({ description: 'Merchant page the payer returns to after paying; http or https only.' }),
    timeout: z
      .number()
      .int('must be a whole number of seconds')
      .min(60, 'must be at least 60 seconds')
      .max(30 * 86400, 'must be at most 2592000 seconds (30 days)')
      .nullish()
      .meta({ description: 'Extension: seconds the payer has to pay (default PAYMENT_TIMEOUT_SECONDS, 3600).' }),
  })
  .meta({ id: 'CreatePayment' });
/** A validated payment creation request. */
export type CreatePaymentInput = z.output<typeof CreatePaymentInput>;

/** Query of GET /v2/payment (after the array encodings are normalised). */
export const ListPaymentsQuery = z.object({
  txnIds: filterValues('Transaction ids received by the payment.', FilterValue),
  ids: filterValues('Payment ids.', FilterValue),
  invoices: filterValues('Merchant invoices.', FilterValue),
  statuses: filterValues(
    'Statuses (OPEN and EXPIRED from the specification; CONFIRMING and COMPLETE are extensions).',
    z.enum(PAYMENT_STATUSES, { error: `each value must be one of ${PAYMENT_STATUSES.join(', ')}` }),
  ),
  ...pageQuery(1),
});
/** A validated payment list query. */
export type ListPaymentsQuery = z.output<typeof ListPaymentsQuery>;

/** The dashboard's payment list: statuses and pages as the API's, and one search term. */
export const SearchPaymentsQuery = ListPaymentsQuery.extend({
  search: text(200).optional().meta({ description: 'A payment id, invoice, receiving address or transaction id.' }),
});
/** A validated dashboard payment list query. */
export type SearchPaymentsQuery = z.output<typeof SearchPaymentsQuery>;

/** Query of the payments report (CSV): payments created at or after `from` and before `to`. */
/**
 * A report bound: an ISO 8601 time, with Z or an offset. Said to be required when missing; an offset
 * whose "+" arrived as a space (left unencoded in the URL) is told how to send it.
 */
function reportTime(example: string) {
  return z.iso.datetime({
    offset: true,
    error: (issue) => {
      if (issue.input === undefined) return 'is required';
      if (typeof issue.input === 'string' && /T[0-9:.]+ [0-9]{2}:?[0-9]{2}$/.test(issue.input)) return 'has a space where its offset\'s "+" should be: send "+" as %2B in a URL';
      return `must be an ISO 8601 time such as ${example}Z or ${example}+01:00`;
    },
  });
}

export const ExportPaymentsQuery = z.object({
  // An offset is taken too (the dashboard sends the browser's local midnights): the file is named by the days as written.
  from: reportTime('2026-11-01T00:00:00').meta({ description: 'Payments created at or after this time (UTC, or with an offset).' }),
  to: reportTime('2026-12-01T00:00:00').meta({ description: 'Payments created before this time (UTC, or with an offset).' }),
});
/** A validated report query, as epoch milliseconds. */
export type ExportPaymentsQuery = z.output<typeof ExportPaymentsQuery>;

/** A transaction received by a payment. */
export const PaymentTransactionOutput = z
  .object({
    paymentId: z.uuid(),
    txnId: z.string(),
    receivedAmount: z.string(),
    asset: AssetOutput,
    destTag: z.string().nullable(),
    addressFrom: z.string(),
    addressTo: z.string(),
    date: Timestamp.meta({ description: 'When the service first saw the transaction.' }),
    confirmations: z.number().int().min(0).meta({ description: 'Extension: confirmations, counted up to confirmsNeeded (a transaction that has them is final and no longer followed).' }),
    late: z.boolean().meta({ description: 'Extension: first seen after the payment expired; credited, but does not complete it.' }),
  })
  .meta({ id: 'PaymentTransaction' });

/** Extension `exception` of the record and the payer's view. */
export const PaymentExceptionOutput = z
  .enum(PAYMENT_EXCEPTIONS)
  .nullable()
  .meta({
    description:
      'Extension: null; OVERPAID (more than amount received before expiry); UNDERPAID (EXPIRED with something received, but not enough); PAID_LATE (a transaction first seen after expiry).',
  });

/** Extension `overpaidAmount` of the record and the payer's view. */
export const OverpaidAmountOutput = z.string().nullable().meta({ description: 'Extension: how much more than amount arrived before expiry (OVERPAID), else null.' });

/** The payment record. */
export const PaymentOutput = z
  .object({
    id: z.uuid(),
    transactions: z.array(PaymentTransactionOutput),
    amount: z.string(),
    totalReceivedAmount: z.string(),
    asset: AssetOutput,
    addressTo: z.string(),
    confirmsNeeded: z.number().int().min(1),
    timeout: z.number().int().min(0).meta({ description: 'Seconds from creation to expiry.' }),
    checkoutUrl: z.string().nullable(),
    status: z.enum(PAYMENT_STATUSES),
    customer: Customer.nullable(),
    merchant: MerchantOutput,
    invoice: z.string().nullable(),
    paymentRedirectUrl: z.url(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    expiresAt: Timestamp.meta({ description: 'Extension: createdAt + timeout.' }),
    amountDue: z.string().meta({ description: 'Extension: what is still to pay, never below zero.' }),
    destTag: z.string().nullable().meta({ description: 'Extension: destination tag the payer must set (XRP), else null.' }),
    paymentUri: z.string().meta({ description: 'Extension: the wallet URI the QR code encodes (BIP21, EIP-681, ...).' }),
    price: PriceOutput.nullable(),
    rate: RateOutput.nullable(),
    exception: PaymentExceptionOutput,
    overpaidAmount: OverpaidAmountOutput,
    refundableAmount: z.string().meta({ description: 'Extension: what was received and confirmed, less every refund of it that is not CANCELLED (POST /v2/payment/{id}/refund refunds at most this; unconfirmed funds are refunded once they confirm).' }),
  })
  .meta({ id: 'Payment' });
/** The payment record as the API returns it. */
export type PaymentOutput = z.output<typeof PaymentOutput>;
