/** Wires every use case over one database: the only place that knows what needs what. */
import { createBalanceService } from './balance/balance.service.ts';
import type { Config } from './config.ts';
import { createCheckoutService } from './checkout/checkout.service.ts';
import { createPaymentEvents } from './checkout/payment-events.ts';
import type { Database } from './db/database.ts';
import { createIdempotencyService } from './idempotency/idempotency.service.ts';
import { createKeyChanges } from './merchants/key-changes.ts';
import { createMerchantService } from './merchants/merchant.service.ts';
import { createAddressPool } from './networks/address-pool.ts';
import { bootstrapChains } from './networks/chains.ts';
import { createChainWatcher } from './jobs/chain-watcher.ts';
import { createExpirySweep } from './jobs/expiry-sweep.ts';
import { createPaymentReceipts } from './payments/payment-receipts.ts';
import { createPaymentTransitions } from './payments/payment-transitions.ts';
import { createPaymentService } from './payments/payment.service.ts';
import { createPaymentExport } from './payments/payment-export.ts';
import { createRateLimiter } from './rate-limits/rate-limiter.ts';
import { createRateBook } from './rates/rate-book.ts';
import { createRateSources } from './rates/rate-sources.ts';
import { createRateService } from './rates/rates.service.ts';
import type { Clock } from './shared/clock.ts';
import type { Logger } from './shared/logger.ts';
import { createUnitOfWork } from './unit-of-work.ts';
import { createPayoutSender } from './withdrawals/payout-sender.ts';
import { createPayoutTracker } from './withdrawals/payout-tracker.ts';
import { createWebhookDispatcher } from './webhooks/webhook-dispatcher.ts';
import { createWebhookOutbox } from './webhooks/webhook-outbox.ts';
import { createWebhookSecrets } from './webhooks/webhook-secrets.ts';
import { createWebhookService } from './webhooks/webhook.service.ts';
import { createWithdrawalCancel } from './withdrawals/withdrawal-cancel.ts';
import { createWithdrawalService } from './withdrawals/withdrawal.service.ts';
import { createClaimTokens } from './refunds/claim-tokens.ts';
import { createMailSender, smtpTransport } from './notifications/mail-sender.ts';
import { createPayerMail } from './notifications/payer-mail.ts';
import { createRefundClaims } from './refunds/refund-claims.ts';
import { createRefundService } from './refunds/refund.service.ts';
import { createRefundTransitions } from './refunds/refund-transitions.ts';
import { createWithdrawalTransitions } from './withdrawals/withdrawal-transitions.ts';
import { createUserService } from './users/user.service.ts';
import { createSessions } from './dashboard/sessions.ts';
import { createMerchantFeed } from './dashboard/merchant-feed.ts';

/** What the services are built from. */
export interface ServiceOptions {
  db: Database;
  config: Config;
  clock: Clock;
  logger: Logger;
  serverKey: Buffer;
}

/**
 * The services that need no chain: merchants and their keys, webhook endpoints and their delivery.
 * `createServices` builds on them; the CLI's merchant and webhook commands use them alone, so that
 * they neither reach a node nor bring up an installation's wallet.
 */
export async function createMerchantServices(options: ServiceOptions) {
  const { db, config, clock, logger, serverKey } = options;
  const uow = createUnitOfWork(db);
  // Subscribed before the first request: a rotation elsewhere is noticed from the start.
  const keyChanges = createKeyChanges(db, clock);
  await keyChanges.generation();
  const merchants = createMerchantService({ uow, serverKey, clock, keyChanges, publicUrl: config.publicUrl });
  await merchants.checkServerKey();
  // Webhooks: events queued in the transactions that change statuses, delivered by the dispatcher.
  const secrets = createWebhookSecrets(serverKey);
  const dispatcher = createWebhookDispatcher({
    uow,
    clock,
    logger,
    secrets,
    send: { timeoutMs: config.webhookTimeoutMs, allowPrivate: config.webhookAllowPrivate },
  });
  const outbox = createWebhookOutbox({ queued: () => dispatcher.nudge() });
  const webhooks = createWebhookService({ uow, clock, secrets, dispatcher, allowPrivate: config.webhookAllowPrivate });
  return { uow, keyChanges, merchants, secrets, dispatcher, outbox, webhooks };
}

/** The merchant services (see `createMerchantServices`). */
export type MerchantServices = Awaited<ReturnType<typeof createMerchantServices>>;

/** Builds every service over one database: the merchant services, the chains, and the use cases over them. */
export async function createServices(options: ServiceOptions) {
  const { db, config, clock, logger, serverKey } = options;
  const { uow, keyChanges, merchants, secrets, dispatcher, outbox, webhooks } = await createMerchantServices(options);
  const chains = await bootstrapChains({ uow, config, clock, logger });
  const { registry, simulator, followers, ethereum, sources, adapter } = chains;
  const events = await createPaymentEvents(db);
  const addressPool = createAddressPool({ uow, registry, poolSize: config.addressPoolSize, logger, derivers: chains.derivers });
  // Mail: queued in the transactions of the events it tells of, sent by the mail job (SMTP_URL).
  const refundView = { registry, publicUrl: config.publicUrl, tokens: createClaimTokens(serverKey) };
  const payerMail = createPayerMail({ enabled: config.smtpUrl !== undefined, clock, registry, view: refundView });
  const mail = config.smtpUrl ? createMailSender({ uow, clock, logger, from: config.smtpFrom, transport: await smtpTransport(config.smtpUrl) }) : undefined;
  const paymentTransitions = createPaymentTransitions({ registry, publicUrl: config.publicUrl, outbox, mail: payerMail });
  const withdrawalTransitions = createWithdrawalTransitions({ registry, outbox });

  // Fiat prices: quotes of the served assets, kept fresh in the background (startJobs starts it).
  const rateBook = createRateBook({
    sources: createRateSources(config.rates),
    clock,
    logger,
    maxAgeMs: config.rates.maxAgeSeconds * 1000,
    refreshMs: config.rates.refreshSeconds * 1000,
    timeoutMs: config.rates.timeoutMs,
    tickers: () => [...new Set(registry.assets().filter((asset) => registry.isServed(asset)).map((asset) => asset.short))],
  });
  const rates = createRateService({ book: rateBook, registry, spreadPercent: config.rates.spreadPercent });
  const payments = createPaymentService({
    uow,
    registry,
    addressPool,
    clock,
    publicUrl: config.publicUrl,
    paymentTimeoutSeconds: config.paymentTimeoutSeconds,
    rates,
    paymentTolerancePercent: config.paymentTolerancePercent,
    merchantChanges: merchants.changes,
    merchantIsCurrent: merchants.isCurrent,
    logger,
  });
  const paymentExport = createPaymentExport({ uow, registry, clock });
  const payouts = createPayoutSender({ uow, registry, clock, adapter, logger });
  const withdrawals = createWithdrawalService({ uow, registry, clock, adapter, logger, transitions: withdrawalTransitions, payouts });
  // The operator's cancel of an approved withdrawal that cannot go out (the CLI, the dashboard).
  const withdrawalCancel = createWithdrawalCancel({ uow, registry, clock, transitions: withdrawalTransitions });
  // Refunds: paid out by withdrawals of their own, through the same payout job; each follows its withdrawal.
  const refundTransitions = createRefundTransitions({ view: refundView, outbox });
  withdrawalTransitions.follow(refundTransitions.withdrawalMoved);
  const refunds = createRefundService({ uow, registry, clock, logger, adapter, view: refundView, transitions: refundTransitions, withdrawalTransitions, payouts, rates, mailed: payerMail });
  const refundClaims = createRefundClaims({ uow, registry, clock, logger, tokens: refundView.tokens, transitions: refundTransitions, withdrawalTransitions, payouts, mailed: payerMail });
  const balance = createBalanceService({ uow, registry });
  const watcher = createChainWatcher({
    uow,
    receipts: createPaymentReceipts({ registry, clock, logger, transitions: paymentTransitions }),
    payouts: createPayoutTracker({ registry, clock, transitions: withdrawalTransitions }),
    events,
  });
  for (const network of simulator?.networks() ?? []) network.adapter.watch((event) => watcher.handle(event));
  for (const follower of followers.values()) follower.watch((event) => watcher.handle(event));
  const checkout = createCheckoutService({ uow, merchants, registry, clock, events, isSimulated: chains.isSimulated });
  const expirySweep = createExpirySweep({ uow, clock, events, transitions: paymentTransitions });
  const idempotency = createIdempotencyService({ uow, clock });
  const rateLimiter = createRateLimiter({ uow, clock, logger });
  const users = createUserService({ uow, clock });
  const sessions = createSessions({ uow, clock });
  const merchantFeed = createMerchantFeed({ uow, events, now: clock });

  return {
    config,
    db,
    uow,
    clock,
    logger,
    registry,
    events,
    keyChanges,
    merchants,
    payments,
    /** The payments report (CSV). */
    paymentExport,
    withdrawals,
    refunds,
    refundClaims,
    /** The mail job (with SMTP_URL only). */
    mail,
    payouts,
    withdrawalCancel,
    balance,
    checkout,
    expirySweep,
    idempotency,
    rateLimiter,
    rateBook,
    rates,
    webhooks,
    /** Dashboard users (the operator's CLI, sign-in). */
    users,
    /** Dashboard sessions. */
    sessions,
    /** The dashboard's live feed of each merchant's changed payments. */
    merchantFeed,
    webhookSecrets: secrets,
    dispatcher,
    addressPool,
    simulator,
    followers,
    /** What serves each network (node, simulator, unserved), for GET /health. */
    sources,
    /** Ethereum's wallet (payouts, sweeps) when ethereum runs on a node. */
    ethereum,
    watcher,
    /** Stops background work owned by the services (not the database). */
    async close(): Promise<void> {
      for (const network of simulator?.networks() ?? []) network.adapter.close();
      for (const follower of followers.values()) follower.close();
      chains.monero?.close();
      await addressPool.close();
      await rateLimiter.close();
    },
  };
}

/** Every service. */
export type Services = Awaited<ReturnType<typeof createServices>>;
