/** The payer-safe view of a payment: what the hosted page and the widget may know. */
import { z } from 'zod';
import { AssetOutput, Timestamp } from '../shared/common.schema.ts';
import { OverpaidAmountOutput, PaymentExceptionOutput } from '../payments/payment.schema.ts';
import { PAYMENT_STATUSES } from '../payments/payment-status.ts';
import { PriceOutput, RateOutput } from '../rates/rates.schema.ts';

/** Response of GET /v2/checkout/:id and the data of each `payment` server-sent event. */
export const CheckoutOutput = z
  .object({
    id: z.uuid(),
    status: z.enum(PAYMENT_STATUSES),
    amount: z.string(),
    amountDue: z.string(),
    totalReceivedAmount: z.string(),
    asset: AssetOutput,
    addressTo: z.string(),
    destTag: z.string().nullable(),
    paymentUri: z.string(),
    confirmsNeeded: z.number().int().min(1),
    timeout: z.number().int().min(0),
    expiresAt: Timestamp,
    createdAt: Timestamp,
    invoice: z.string().nullable(),
    checkoutUrl: z.string().nullable(),
    merchant: z.object({ name: z.string(), siteUrl: z.string().nullable(), logoUrl: z.string().nullable() }),
    transactions: z.array(
      z.object({ txnId: z.string(), receivedAmount: z.string(), confirmations: z.number().int().min(0), date: Timestamp, late: z.boolean() }),
    ),
    exception: PaymentExceptionOutput,
    overpaidAmount: OverpaidAmountOutput,
    refund: z
      .object({
        amount: z.string().meta({ description: 'The total of those refunds, in the asset (the network fee comes out of it).' }),
        sent: z.boolean().meta({ description: 'Every one of them is paid out and confirmed (COMPLETE).' }),
      })
      .nullable()
      .meta({
        description:
          'Extension: the refunds of this payment on their way to the payer (being paid out, or paid; not one still waiting for the payer\'s address or for the merchant\'s approval, nor a cancelled one), or null when there is none. The payer page says the refund is on its way, or sent, instead of offering one.',
      }),
    testNetwork: z.boolean().meta({
      description:
        "Extension: true when the asset's network is simulated (SIMULATOR on, no node for it). Its addresses look real but nothing sent to them is watched or counted; the payer page says \"Test network: no real funds move\".",
    }),
    price: PriceOutput.nullable(),
    rate: RateOutput.nullable(),
    serverTime: Timestamp.meta({ description: 'The server clock when this view was made, to run the countdown against.' }),
  })
  .meta({ id: 'Checkout' });
/** The payer-safe view. */
export type CheckoutOutput = z.output<typeof CheckoutOutput>;
