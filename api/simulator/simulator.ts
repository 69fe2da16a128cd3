/** The simulated chains of every network, and the dev use cases that drive them. */
import { type FieldError, invalidFields, NotFound } from '../shared/errors.ts';
import { parseCollecting } from '../shared/validation.ts';
import type { AssetRegistry } from '../networks/asset-registry.ts';
import { resolveRequestAsset } from '../networks/asset-rules.ts';
import { deriveAddress } from '../networks/hd-wallet.ts';
import type { Clock } from '../shared/clock.ts';
import type { UnitOfWork } from '../unit-of-work.ts';
import { formatAmount } from '../shared/money.ts';
import { MineBlocksInput, SimulatedTransactionInput } from './simulator.schema.ts';
import { createSimulatedNetwork, type SimulatedNetwork } from './simulated-network.ts';

/** Creates a simulated chain for every network in the registry. */
export async function createSimulator(deps: { uow: UnitOfWork; registry: AssetRegistry; clock: Clock; skip?: readonly string[] }) {
  const { uow, registry, clock } = deps;
  const networks = new Map<string, SimulatedNetwork>();
  // Networks on a real node are not simulated.
  for (const network of registry.networks().filter((n) => !deps.skip?.includes(n.name))) {
    const xpub = await uow.stores.addresses.xpubOf(network.name);
    if (!xpub) throw new Error(`network ${network.name} has no HD account`);
    const simulated = createSimulatedNetwork({ uow, network, clock, hotWallet: deriveAddress(xpub, network.name, 1, 0, 'main') });
    await simulated.start();
    networks.set(network.name, simulated);
  }

  const unknownNetwork: FieldError = { path: 'network', message: `must be one of ${[...networks.keys()].join(', ')}` };

  function networkNamed(name: string): SimulatedNetwork {
    const network = networks.get(name);
    if (!network) throw invalidFields([unknownNetwork]);
    return network;
  }

  return {
    /** The adapter of a network's simulated chain. */
    adapter: (name: string) => networkNamed(name).adapter,

    /** Every simulated network. */
    networks: () => [...networks.values()],

    /** POST /v2/dev/transactions: a payer sends funds to an address. */
    async submitTransaction(body: unknown) {
      const { data, errors } = parseCollecting(SimulatedTransactionInput, body);
      const asset = resolveRequestAsset(registry, body, errors, (named) =>
        typeof (body as { address?: unknown }).address === 'string' && !registry.codec(named.network).isValid((body as { address: string }).address)
          ? [{ path: 'address', message: `is not a valid ${named.network} address` }]
          : [],
      );
      const input = data!;
      const network = networkNamed(asset.network);
      const transaction = await network.submit({
        asset,
        // Any valid spelling of an address pays it, as on the real network.
        address: registry.codec(asset.network).canonical(input.address),
        destTag: input.destTag ?? null,
        amount: formatAmount(input.amount, asset.decimals),
        confirmations: input.confirmations ?? 0,
      });
      return {
        txnId: transaction.txnId,
        network: transaction.network,
        asset: registry.toJson(asset),
        addressFrom: transaction.addressFrom,
        addressTo: transaction.addressTo,
        destTag: transaction.destTag,
        amount: transaction.amount,
        confirmations: transaction.confirmations,
      };
    },

    /** POST /v2/dev/blocks: mines blocks on one network, or on all of them. */
    async mineBlocks(body: unknown) {
      const parsed = parseCollecting(MineBlocksInput, body ?? {});
      const errors: FieldError[] = [...parsed.errors];
      const named = (body as { network?: unknown } | null)?.network;
      // Listed with the schema's errors, so every bad field is named at once.
      if (typeof named === 'string' && named !== '' && !networks.has(named)) errors.push(unknownNetwork);
      if (errors.length > 0) throw invalidFields(errors);
      const input = parsed.data!;
      const count = input.count ?? 1;
      const targets = input.network === undefined ? [...networks.values()] : [networkNamed(input.network)];
      const blocks: Array<{ network: string; height: number }> = [];
      for (const network of targets) blocks.push({ network: network.adapter.network, height: await network.mine(count) });
      return { blocks };
    },

    /** POST /v2/dev/transactions/:txnId/drop: an unconfirmed transaction leaves the mempool. */
    async dropTransaction(txnId: string) {
      // No transaction id holds NUL (and PostgreSQL refuses it as a parameter).
      for (const network of txnId.includes('\u0000') ? [] : networks.values()) {
        try {
          await network.drop(txnId);
          return { txnId, dropped: true };
        } catch (err) {
          if (!(err instanceof NotFound)) throw err;
        }
      }
      throw new NotFound('not-found', `No unconfirmed transaction ${txnId} on any simulated network.`);
    },

    /** Mines one block on every network (the block timer). */
    async tick(): Promise<void> {
      for (const network of networks.values()) await network.mine(1);
    },
  };
}

/** The simulator. */
export type Simulator = Awaited<ReturnType<typeof createSimulator>>;
