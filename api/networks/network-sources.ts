/**
 * @module Where each network's payments are seen: on its node, on the simulator, or nowhere. A
 * network with neither is not served (its assets are refused and absent from GET /v2/assets); start-up
 * says so once per network, and GET /health lists every network with its source.
 */
import type { Logger } from '../shared/logger.ts';
import type { Network } from './asset-registry.ts';

/** What serves a network: its node, the simulator, or nothing. */
export type NetworkSource = 'node' | 'simulator' | 'unserved';

/** The variable that names a network's node, for the networks that can run on one. */
const NODE_VARIABLES: Readonly<Record<string, string>> = {
  bitcoin: 'BITCOIN_RPC_URL',
  litecoin: 'LITECOIN_RPC_URL',
  ethereum: 'ETHEREUM_RPC_URL',
  monero: 'MONERO_WALLET_RPC_URL and MONERO_DAEMON_RPC_URL',
};

/** Each network of the registry, in its order, with what serves it. */
export function networkSources(networks: readonly Network[], served: { onNode: ReadonlySet<string>; simulated: ReadonlySet<string> }): ReadonlyMap<string, NetworkSource> {
  return new Map(networks.map(({ name }) => [name, served.onNode.has(name) ? 'node' : served.simulated.has(name) ? 'simulator' : 'unserved']));
}

/** Why a network is not served, and what would serve it. */
export function unservedMessage(network: string): string {
  const variable = NODE_VARIABLES[network];
  const cause = variable ? `no node (${variable}) and the simulator is off` : 'it runs only on the simulator, which is off';
  return `${network} is not served: ${cause}; its assets are refused and absent from GET /v2/assets`;
}

/** Logs one warning for each network that nothing serves. */
export function warnUnserved(sources: ReadonlyMap<string, NetworkSource>, logger: Logger): void {
  for (const [network, source] of sources) {
    if (source === 'unserved') logger.warn({ network }, unservedMessage(network));
  }
}
