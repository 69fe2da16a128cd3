import { Router } from 'express';
import { parseOrThrow } from '../shared/validation.ts';
import type { MerchantAuth } from '../merchants/merchant-auth.ts';
import type { RateService } from './rates.service.ts';
import { RatesQuery } from './rates.schema.ts';

/** GET /rates?currency=USD (API key), mounted at /v2/rates. */
export function rateRoutes(rates: RateService, auth: MerchantAuth): Router {
  const router = Router();
  router.get('/', ...auth.apiKey, async (req, res) => {
    const query = parseOrThrow(RatesQuery, { currency: req.query.currency });
    res.json(await rates.list(query.currency ?? 'USD'));
  });
  return router;
}
