import { Router } from 'express';
import type { MerchantAuth } from '../merchants/merchant-auth.ts';
import type { BalanceService } from './balance.service.ts';

/** GET /balance, mounted at /v2/balance: what each asset holds, available and reserved for payouts. */
export function balanceRoutes(balance: BalanceService, auth: MerchantAuth): Router {
  const router = Router();
  router.get('/', ...auth.apiKey, async (_req, res) => {
    res.json(await balance.balances(res.locals.merchant));
  });
  return router;
}
