-- Monero (section 19): one subaddress of the installation's wallet per payment (hd_accounts keeps
-- the next subaddress index, so no index is handed out twice, across instances too), XMR shown with
-- 8 decimals and counted exactly in the chain's 10^-12 units. counted_decimals: the digits received
-- amounts and the ledger keep (NULL: the asset's decimals); the API floors them to `decimals`.
ALTER TABLE assets ADD COLUMN counted_decimals BIGINT;
INSERT INTO networks (name, display_name, confirmations_needed, receive_mode, account_path, chain_id) VALUES
  ('monero', 'Monero', 10, 'derived', 'm/44''/128''/0''', NULL);
INSERT INTO assets (short, network, name, logo, decimals, chain_decimals, contract_address, withdrawal_fee, dust_limit, counted_decimals) VALUES
  ('XMR', 'monero', 'Monero', '/logos/xmr.svg', 8, 12, NULL, '0.0001', '0', 12);
