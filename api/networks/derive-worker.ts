/** Worker thread that derives batches of receiving addresses off the main event loop. */
import { parentPort } from 'node:worker_threads';
import { useUtxoChain, type utxoChainsInUse } from './address-codecs.ts';
import { deriveReceiveAddress } from './hd-wallet.ts';

/** A batch of consecutive derivation indexes to turn into addresses. */
export interface DeriveRequest {
  id: number;
  network: string;
  xpub: string;
  fromIndex: number;
  count: number;
  /** The chains the main thread's UTXO networks are on (their address prefixes). */
  chains: ReturnType<typeof utxoChainsInUse>;
}

/** The addresses of a batch, in index order. */
export interface DeriveResponse {
  id: number;
  addresses: string[];
}

parentPort?.on('message', (request: DeriveRequest) => {
  for (const [network, params] of Object.entries(request.chains)) useUtxoChain(network as 'bitcoin' | 'litecoin', params);
  const addresses: string[] = [];
  for (let i = 0; i < request.count; i++) addresses.push(deriveReceiveAddress(request.xpub, request.network, request.fromIndex + i));
  parentPort!.postMessage({ id: request.id, addresses } satisfies DeriveResponse);
});
