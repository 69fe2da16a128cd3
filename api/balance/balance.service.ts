/** The merchant's balance use case: what each asset holds, available and reserved for payouts. */
import type { Merchant } from '../merchants/merchant.store.ts';
import type { AssetRegistry } from '../networks/asset-registry.ts';
import { formatCounted } from '../shared/money.ts';
import type { UnitOfWork } from '../unit-of-work.ts';

/** Creates the balance use case. */
export function createBalanceService(deps: { uow: UnitOfWork; registry: AssetRegistry }) {
  const { uow, registry } = deps;
  return {
    /** The merchant's balance of every asset it has held, in asset order (finer counted digits cut for display). */
    async balances(merchant: Merchant) {
      const latest = await uow.stores.ledger.balances(merchant.id);
      return {
        data: latest.map((b) => {
          const asset = registry.byId(b.assetId);
          return { asset: registry.toJson(asset), available: formatCounted(b.available, asset.decimals), reserved: formatCounted(b.reserved, asset.decimals) };
        }),
      };
    },
  };
}

/** The balance use case. */
export type BalanceService = ReturnType<typeof createBalanceService>;
