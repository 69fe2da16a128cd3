import { type RequestHandler, Router } from 'express';
import { IMMUTABLE, sendEncodedFile } from '../http/static-files.ts';
import { formatAmount } from '../shared/money.ts';
import type { AssetRegistry } from './asset-registry.ts';
import type { AssetListOutput } from './asset.schema.ts';
import { type LogoFiles, shippedLogos } from './logo-files.ts';

const WEEK_SECONDS = 7 * 24 * 3600;

/** GET /v2/assets (mounted there): the served assets (public), with confirmations needed and the withdrawal fee. */
export function assetRoutes(registry: AssetRegistry): Router {
  const router = Router();
  router.get('/', (_req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    const body: AssetListOutput = {
      data: registry
        .assets()
        .filter((asset) => registry.isServed(asset))
        .map((asset) => ({
          ...registry.toJson(asset),
          confirmsNeeded: registry.network(asset.network).confirmationsNeeded,
          withdrawalFee: formatAmount(asset.withdrawalFee, asset.decimals),
          minWithdrawal: formatAmount(asset.minWithdrawal, asset.decimals),
        })),
    };
    res.json(body);
  });
  return router;
}

/**
 * The asset logos (mounted at /logos), compressed as the client accepts: under the content-hashed
 * names the registry's logoUrl points at, cached for a year, immutable; under their plain names
 * (`/logos/btc.svg`, which pages embedded earlier still load) for 7 days, as before.
 */
export function logoRoutes(logos: LogoFiles = shippedLogos()): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const logo = logos.find(req.path.slice(1));
    if (!logo) return next();
    sendEncodedFile(req, res, logo.file, logo.hashed ? IMMUTABLE : `public, max-age=${WEEK_SECONDS}`);
  };
}
