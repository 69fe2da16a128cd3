-- The smallest output each network relays (its dust limit), per asset. A payout of the fee plus less
-- than this would be refused by the network's nodes, so withdrawals below fee + dust are refused
-- up front. UTXO chains: Bitcoin Core's 546 satoshi (a P2PKH output at the default dust relay fee;
-- the largest of the common output types) and Litecoin Core's 5,460 litoshi (ten times the relay
-- fee). Account chains have no dust: their floor is one smallest unit of the asset.
ALTER TABLE assets ADD COLUMN dust_limit TEXT NOT NULL DEFAULT '0';
UPDATE assets SET dust_limit = '0.00000546' WHERE short = 'BTC' AND network = 'bitcoin';
UPDATE assets SET dust_limit = '0.0000546' WHERE short = 'LTC' AND network = 'litecoin';
