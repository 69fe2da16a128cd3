/** Routers beyond the API that main mounts: the hosted payer page and the demo store. */
import type { Router } from 'express';
import { createDemoRouter } from '../demo/demo-app.ts';
import type { Services } from './services.ts';

/** The extra mounts of a running service. */
export function extraMounts(services: Services): Array<[string, Router]> {
  const { config, logger } = services;
  const demo = createDemoRouter({
    basePath: '/demo',
    publicUrl: config.publicUrl,
    dataDir: config.dataDir,
    simulator: services.simulator !== undefined,
    logError: (err, message) => logger.error({ err }, message),
  });
  return [['/demo', demo]];
}
