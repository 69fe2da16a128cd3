import { Router } from 'express';
import { jsonBody } from '../http/json-body.ts';
import type { Simulator } from './simulator.ts';

/** The simulator's unauthenticated dev endpoints; mounted only when SIMULATOR is on. */
export function simulatorRoutes(simulator: Simulator): Router {
  const router = Router();
  router.post('/transactions', ...jsonBody, (req, res) => {
    res.json(simulator.submitTransaction(req.body));
  });
  router.post('/transactions/:txnId/drop', (req, res) => {
    res.json(simulator.dropTransaction(req.params.txnId));
  });
  router.post('/blocks', ...jsonBody, (req, res) => {
    res.json(simulator.mineBlocks(req.body));
  });
  return router;
}
