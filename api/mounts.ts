/** Routers beyond the API that main mounts: the demo store (not in production). */
import type { Router } from 'express';
import { createDemoRouter } from '../demo/demo-app.ts';
import type { Services } from './services.ts';

/** The extra mounts of a running service. */
export function extraMounts(services: Services): Array<[string, Router]> {
  const { config, logger } = services;
  // The demo store acts with the demo merchant's keys; a production service has neither.
  if (config.production) return [];
  const demo = createDemoRouter({
    basePath: '/demo',
    publicUrl: config.publicUrl,
    dataDir: config.dataDir,
    simulator: services.simulator !== undefined,
    webhookSecret: async (merchantId, endpointId) => {
      const merchant = await services.merchants.findById(merchantId);
      if (!merchant) throw new Error(`the demo merchant ${merchantId} is not in the database`);
      return services.webhooks.secretOf(merchant, endpointId);
    },
    logError: (err, message) => logger.error({ err }, message),
  });
  return [['/demo', demo]];
}
