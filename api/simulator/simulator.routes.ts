import { Router } from 'express';
import { jsonBody } from '../http/json-body.ts';
import type { Simulator } from './simulator.ts';

/** The simulator's unauthenticated dev endpoints; mounted only when SIMULATOR is on. */
export function simulatorRoutes(simulator: Simulator): Router {
  const router = Router();
  router.post('/transactions', ...jsonBody, async (req, res) => {
    res.json(await simulator.submitTransaction(req.body));
  });
  router.post('/transactions/:txnId/drop', async (req, res) => {
    res.json(await simulator.dropTransaction(req.params.txnId));
  });
  router.post('/blocks', ...jsonBody, async (req, res) => {
    res.json(await simulator.mineBlocks(req.body));
  });
  return router;
}
