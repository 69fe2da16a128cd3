/** Routers beyond the API that main mounts: the hosted payer page and the demo store. */
import type { Router } from 'express';
import type { Services } from './services.ts';

/** The extra mounts of a running service. */
export function extraMounts(_services: Services): Array<[string, Router]> {
  return [];
}
