/**
 * @module Wallet URIs for QR codes and "open in wallet" links: BIP21 for bitcoin and litecoin,
 * EIP-681 for ether and ERC-20 tokens, Monero's `monero:` URI (tx_amount), the classic ripple: URI with its tag, and the bare address
 * where a network has no URI scheme wallets agree on (Tron).
 */
import { type Amount, toBaseUnits } from '../shared/money.ts';
import type { Asset, Network } from './asset-registry.ts';

type UriBuilder = (target: { asset: Asset; network: Network; address: string; destTag: string | null; amount: Amount }) => string;

const bip21 = (scheme: string): UriBuilder => ({ address, amount }) => `${scheme}:${address}?amount=${amount.toFixed()}`;

const BUILDERS: Record<string, UriBuilder> = {
  bitcoin: bip21('bitcoin'),
  litecoin: bip21('litecoin'),
  ethereum({ asset, network, address, amount }) {
    const chain = network.chainId ?? 1;
    const units = toBaseUnits(amount, asset.chainDecimals);
    return asset.contractAddress
      ? `ethereum:${asset.contractAddress}@${chain}/transfer?address=${address}&uint256=${units}`
      : `ethereum:${address}@${chain}?value=${units}`;
  },
  monero: ({ address, amount }) => `monero:${address}?tx_amount=${amount.toFixed()}`,
  ripple: ({ address, destTag, amount }) => `ripple:${address}?${destTag ? `dt=${destTag}&` : ''}amount=${amount.toFixed()}`,
};

/** The URI a payer's wallet should open to pay `amount` to an address. */
export function paymentUri(target: Parameters<UriBuilder>[0]): string {
  const build = BUILDERS[target.network.name];
  return build ? build(target) : target.address;
}
