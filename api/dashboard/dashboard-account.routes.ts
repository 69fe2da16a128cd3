/**
 * The dashboard's merchant-wide pages, mounted at /dashboard/api: balance, the shop's settings, API
 * key rotation (the new pair answered this once, never stored or sent again) and the payments
 * report. Changes are for owners, CSRF-checked; the same use cases as the API and the CLI.
 */
import { Router } from 'express';
import type { BalanceService } from '../balance/balance.service.ts';
import { isoTime } from '../shared/clock.ts';
import { jsonBody } from '../http/json-body.ts';
import { parseOrThrow } from '../shared/validation.ts';
import { RotateKeysInput } from '../merchants/merchant.schema.ts';
import type { MerchantService } from '../merchants/merchant.service.ts';
import type { PaymentExport } from '../payments/payment-export.ts';
import { sendPaymentsCsv } from '../payments/payment-export.routes.ts';
import { NotFound } from '../shared/errors.ts';
import type { DashboardAuth } from './dashboard-auth.ts';

/** The account routes of the dashboard. */
export function dashboardAccountRoutes(deps: { balance: BalanceService; merchants: MerchantService; exporter: PaymentExport; auth: DashboardAuth }): Router {
  const { balance, merchants, exporter, auth } = deps;
  const router = Router();
  router.get('/balance', ...auth.signedIn, async (_req, res) => {
    res.json(await balance.balances(res.locals.merchant));
  });
  router.get('/settings', ...auth.signedIn, (_req, res) => {
    res.json(res.locals.merchant);
  });
  router.put('/settings', ...auth.change, ...jsonBody, async (req, res) => {
    res.json(await merchants.updateProfile(res.locals.merchant.id, await merchants.readProfile(res.locals.merchant.id, req.body)));
  });
  router.post('/keys/rotate', ...auth.change, ...jsonBody, async (req, res) => {
    const { graceSeconds } = parseOrThrow(RotateKeysInput, req.body);
    const rotated = await merchants.rotateKeys(res.locals.merchant.id, graceSeconds);
    if (!rotated) throw new NotFound('merchant-not-found', 'This merchant no longer exists.');
    res.json({ apiKey: rotated.apiKey, secretKey: rotated.secretKey, previousKeysValidUntil: isoTime(rotated.previousKeysValidUntil) });
  });
  router.get('/reports/payments.csv', ...auth.signedIn, (req, res) => sendPaymentsCsv(exporter, req, res));
  return router;
}
