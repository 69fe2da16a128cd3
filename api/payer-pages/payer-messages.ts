/**
 * @module The words of the payer's refund, request and receipt pages and of the mail sent to payers,
 * in every language the payer page speaks (contract section 14). One file per language under
 * `locales/`; English is the reference every other follows.
 */
import type { Locale } from '../../widget/i18n/locales.ts';
import type { RefundStatus } from '../refunds/refund.store.ts';

/** Every text of the payer's refund, request and receipt pages and mail. */
export interface PayerMessages {
  locale: Locale;
  refundFrom: (shop: string) => string;
  amount: string;
  status: string;
  statuses: Record<RefundStatus, string>;
  feeNote: string;
  /** The label of the address a refund goes to, in every state (requested, approved, sent). */
  refundAddress: string;
  destTag: string;
  transaction: string;
  yourAddress: (network: string) => string;
  tagHint: string;
  send: string;
  requestTitle: (shop: string) => string;
  requestIntro: (shop: string) => string;
  requestButton: string;
  linkRequest: string;
  linkReceipt: string;
  invalidLink: string;
  invalidLinkDetail: string;
  updatesEvery: (seconds: number) => string;
  addressInvalid: (network: string) => string;
  /** The address field left empty. */
  addressRequired: (network: string) => string;
  tagRequired: string;
  tagInvalid: string;
  /** The address given is one of the service's own receiving addresses. */
  addressOwn: (network: string) => string;
  addressAlreadySet: string;
  /** A claim link's refund the shop cancelled: it takes no address. */
  refundCancelledNoAddress: string;
  alreadyRequested: string;
  nothingToRefund: string;
  /** The request page of a payment the shop refunds already, the payer's address still to give through the shop's link. */
  shopRefunding: string;
  shopRefundingDetail: string;
  /** The request page of a payment refunded already (a refund approved or paid covers what was owed). */
  alreadyRefunded: string;
  /** A refund request while what the payer sent still confirms: the link is good, just early. */
  fundsConfirming: string;
  fundsConfirmingDetail: string;
  receiptTitle: (shop: string) => string;
  invoice: string;
  date: string;
  totalReceived: string;
  /** The label of a fiat-priced payment's locked rate. */
  rate: string;
  /** Who quoted the rate and when (`sources` a list in the locale, `time` a date and time). */
  rateQuoted: (sources: string, time: string) => string;
  late: string;
  printHint: string;
  mailReceiptSubject: (shop: string) => string;
  mailReceiptText: (shop: string, url: string) => string;
  mailClaimSubject: (shop: string) => string;
  mailClaimText: (shop: string, amount: string, url: string) => string;
}
