-- The networks and assets served out of the box. Adding an asset on a known network is a row here
-- (or in a later migration), not a code change.
INSERT INTO networks (name, display_name, confirmations_needed, receive_mode, account_path, chain_id) VALUES
  ('bitcoin',  'Bitcoin',    2, 'derived', 'm/84''/0''/0''',   NULL),
  ('litecoin', 'Litecoin',   3, 'derived', 'm/84''/2''/0''',   NULL),
  ('ethereum', 'Ethereum',   3, 'derived', 'm/44''/60''/0''',  1),
  ('tron',     'Tron',       3, 'derived', 'm/44''/195''/0''', NULL),
  ('ripple',   'XRP Ledger', 1, 'tagged',  'm/44''/144''/0''', NULL);

INSERT INTO assets (short, network, name, logo, decimals, chain_decimals, contract_address, withdrawal_fee) VALUES
  ('BTC',  'bitcoin',  'Bitcoin',             '/logos/btc.svg',  8, 8,  NULL, '0.00002'),
  ('LTC',  'litecoin', 'Litecoin',            '/logos/ltc.svg',  8, 8,  NULL, '0.0001'),
  ('ETH',  'ethereum', 'Ether',               '/logos/eth.svg',  8, 18, NULL, '0.0005'),
  ('USDT', 'ethereum', 'Tether USD (ERC-20)', '/logos/usdt.svg', 6, 6,  '0xdAC17F958D2ee523a2206206994597C13D831ec7', '3'),
  ('USDC', 'ethereum', 'USD Coin (ERC-20)',   '/logos/usdc.svg', 6, 6,  '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', '3'),
  ('USDT', 'tron',     'Tether USD (TRC-20)', '/logos/usdt.svg', 6, 6,  'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', '1'),
  ('TRX',  'tron',     'TRON',                '/logos/trx.svg',  6, 6,  NULL, '1'),
  ('XRP',  'ripple',   'XRP',                 '/logos/xrp.svg',  6, 6,  NULL, '0.000012');
