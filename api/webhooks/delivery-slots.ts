/**
 * @module Delivery slots: how many endpoints one instance sends to at once, and how many of those
 * one merchant may hold. A slot is taken for one endpoint's turn and given back when that turn ends,
 * so a slow endpoint costs its own merchant's slots and never anyone else's.
 */

/** Endpoints one instance sends to at once. */
export const PARALLEL_ENDPOINTS = 8;
/** Of those, how many one merchant's endpoints may hold. */
export const SLOTS_PER_MERCHANT = 2;

/** Creates an empty set of slots. */
export function createDeliverySlots(limits: { total: number; perMerchant: number } = { total: PARALLEL_ENDPOINTS, perMerchant: SLOTS_PER_MERCHANT }) {
  const merchantOf = new Map<string, string>();
  const heldBy = new Map<string, number>();
  return {
    /** How many slots are free. */
    free: () => limits.total - merchantOf.size,

    /** Takes a slot for an endpoint unless none is free, it has one, or its merchant holds its share; true if taken. */
    take(endpointId: string, merchantId: string): boolean {
      const held = heldBy.get(merchantId) ?? 0;
      if (merchantOf.size >= limits.total || merchantOf.has(endpointId) || held >= limits.perMerchant) return false;
      merchantOf.set(endpointId, merchantId);
      heldBy.set(merchantId, held + 1);
      return true;
    },

    /** Gives an endpoint's slot back. */
    give(endpointId: string): void {
      const merchantId = merchantOf.get(endpointId);
      if (merchantId === undefined) return;
      merchantOf.delete(endpointId);
      const held = (heldBy.get(merchantId) ?? 1) - 1;
      if (held === 0) heldBy.delete(merchantId);
      else heldBy.set(merchantId, held);
    },
  };
}
