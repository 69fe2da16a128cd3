import express, { Router } from 'express';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatAmount } from '../shared/money.ts';
import type { AssetRegistry } from './asset-registry.ts';
import type { AssetListOutput } from './asset.schema.ts';

const LOGOS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'logos');

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

/** The asset logos the registry's logoUrl points at. */
export const logoFiles = express.static(LOGOS_DIR, { maxAge: '7d', fallthrough: true });
