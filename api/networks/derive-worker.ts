/** Worker thread that derives batches of receiving addresses off the main event loop. */
import { parentPort } from 'node:worker_threads';
import type { ChainName } from '../config.ts';
import { deriveReceiveAddress } from './hd-wallet.ts';

/** A batch of consecutive derivation indexes to turn into addresses. */
export interface DeriveRequest {
  id: number;
  network: string;
  xpub: string;
  fromIndex: number;
  count: number;
  /** The blockchain the network runs on (its address prefixes). */
  chain: ChainName;
}

/** The addresses of a batch, in index order. */
export interface DeriveResponse {
  id: number;
  addresses: string[];
}

parentPort?.on('message', (request: DeriveRequest) => {
  const addresses: string[] = [];
  for (let i = 0; i < request.count; i++) addresses.push(deriveReceiveAddress(request.xpub, request.network, request.fromIndex + i, request.chain));
  parentPort!.postMessage({ id: request.id, addresses } satisfies DeriveResponse);
});
