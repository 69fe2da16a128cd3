/**
 * @module The records and requests of the merchant API, as the client sends and returns them.
 * Every record type is inferred from the server's own zod schemas (type-only imports: the client
 * has no runtime dependency on the server), so the two cannot drift apart.
 */
import type { z } from 'zod';
import type { ErrorCode, FieldError } from '../api/http/api-error.ts';
import type { AssetListOutput } from '../api/networks/asset.schema.ts';
import type { CreatePaymentInput as CreatePaymentSchema, PaymentOutput } from '../api/payments/payment.schema.ts';
import type { CreatedWebhookOutput, CreateWebhookInput as CreateWebhookSchema, WebhookDeliveryOutput, WebhookEventType as EventTypeOfServer, WebhookOutput } from '../api/webhooks/webhook.schema.ts';
import type { BalanceOutput, CreateWithdrawalInput as CreateWithdrawalSchema, WithdrawalOutput } from '../api/withdrawals/withdrawal.schema.ts';
import type { RatesOutput } from '../api/rates/rates.schema.ts';

/** The current rates in one currency (GET /v2/rates): every served asset that has a fresh one. */
export type Rates = RatesOutput;
/** One asset's rate: currency units per asset unit, before any spread, with its sources and time. */
export type AssetRate = Rates['data'][number];

/** A payment record (POST /v2/payment, GET /v2/payment/:id). */
export type Payment = PaymentOutput;
/** A transaction received by a payment. */
export type PaymentTransaction = Payment['transactions'][number];
/** A payment status: OPEN, CONFIRMING, COMPLETE or EXPIRED. */
export type PaymentStatus = Payment['status'];

/** A withdrawal record (POST /v2/withdrawal, GET /v2/withdrawal/:id, approve, cancel). */
export type Withdrawal = WithdrawalOutput;
/** A withdrawal status: OPEN, APPROVED, COMPLETE or CANCELLED. */
export type WithdrawalStatus = Withdrawal['status'];

/** A webhook endpoint as GET /v2/webhooks lists it. */
export type Webhook = WebhookOutput;
/** A new webhook endpoint with its signing secret (POST /v2/webhooks), shown once. */
export type CreatedWebhook = CreatedWebhookOutput;
/** The body of POST /v2/webhooks. */
export type CreateWebhookRequest = z.input<typeof CreateWebhookSchema>;
/** One delivery attempt from GET /v2/webhooks/:id/deliveries. */
export type WebhookDelivery = WebhookDeliveryOutput;
/** An event type: payment.transaction-seen, payment.confirming, payment.completed, payment.expired, payment.reopened, withdrawal.approved, withdrawal.completed, withdrawal.cancelled. */
export type WebhookEventType = EventTypeOfServer;
/** An event as POSTed to an endpoint, after verifyWebhook: payment.* events carry a payment, withdrawal.* a withdrawal. */
export type WebhookEvent =
  | { type: Extract<WebhookEventType, `payment.${string}`>; timestamp: string; data: Payment }
  | { type: Extract<WebhookEventType, `withdrawal.${string}`>; timestamp: string; data: Withdrawal };

/** The full asset object of records. */
export type Asset = Payment['asset'];
/** A served asset from GET /v2/assets, with its confirmations needed and withdrawal fee. */
export type AssetInfo = AssetListOutput['data'][number];
/** One row of GET /v2/balance: what is available and reserved in one asset. */
export type AssetBalance = z.output<typeof BalanceOutput>['data'][number];

/** Body of createPayment. Amounts are decimal strings, never numbers. */
export type CreatePaymentRequest = z.input<typeof CreatePaymentSchema>;
/** Body of createWithdrawal. `invoice` is unique per merchant. */
export type CreateWithdrawalRequest = z.input<typeof CreateWithdrawalSchema>;

/** One page of a list endpoint. */
export interface Page<T> {
  data: T[];
  /** Payments count pages from 1, withdrawals from 0. */
  page: number;
  limit: number;
  /** Records matching the filters, over all pages. */
  total: number;
}

/** Filters shared by both list endpoints; every array filter matches any of its values. */
interface ListFilters<Status extends string> {
  ids?: readonly string[];
  invoices?: readonly string[];
  txnIds?: readonly (string | number)[];
  statuses?: readonly Status[];
  /** Records per page, 1 to 100 (server default 20). */
  limit?: number;
}

/** Query of listPayments; `page` starts at 1. */
export interface ListPaymentsQuery extends ListFilters<PaymentStatus> {
  page?: number;
}
/** Query of listWithdrawals; `page` starts at 0. */
export interface ListWithdrawalsQuery extends ListFilters<WithdrawalStatus> {
  page?: number;
}
/** Filters of the `payments()` and `withdrawals()` iterators (they choose the pages themselves). */
export type PaymentFilters = ListFilters<PaymentStatus>;
/** Filters of the `withdrawals()` iterator. */
export type WithdrawalFilters = ListFilters<WithdrawalStatus>;

/** An error code the API answers with, or one the client names for failures without an answer. */
export type CheckoutErrorCode = ErrorCode | ClientErrorCode;
/** Failures the client itself names: no answer, a late answer, or an answer that is not the API's JSON. */
export type ClientErrorCode = 'network-error' | 'timeout' | 'invalid-response';
/** One invalid field of a 400 validation-failed. */
export type ErrorDetail = FieldError;
