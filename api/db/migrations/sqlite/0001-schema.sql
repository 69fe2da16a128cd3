-- Amounts are decimal strings rendered with their asset's decimals; times are epoch milliseconds.

CREATE TABLE networks (
  name                 TEXT PRIMARY KEY,
  display_name         TEXT NOT NULL,
  confirmations_needed INTEGER NOT NULL CHECK (confirmations_needed >= 1),
  -- How receiving addresses are made: 'derived' (one HD address per payment) or 'tagged'
  -- (one shared address, a unique destination tag per payment).
  receive_mode         TEXT NOT NULL CHECK (receive_mode IN ('derived', 'tagged')),
  -- BIP44-style account path of the installation's key for this network.
  account_path         TEXT NOT NULL,
  chain_id             INTEGER
);

CREATE TABLE assets (
  id               INTEGER PRIMARY KEY,
  short            TEXT NOT NULL,
  network          TEXT NOT NULL REFERENCES networks (name),
  name             TEXT NOT NULL,
  -- An absolute URL, or a path served by this service (joined to PUBLIC_URL).
  logo             TEXT NOT NULL,
  decimals         INTEGER NOT NULL CHECK (decimals BETWEEN 0 AND 8),
  -- Decimals of the asset on its chain (18 for ether), for wallet URIs in base units.
  chain_decimals   INTEGER NOT NULL,
  -- Token contract, for assets that are not their network's native coin.
  contract_address TEXT,
  withdrawal_fee   TEXT NOT NULL,
  UNIQUE (short, network)
);

CREATE TABLE merchants (
  id             TEXT PRIMARY KEY,
  name           TEXT NOT NULL,
  site_url       TEXT,
  logo_url       TEXT,
  email          TEXT,
  -- SHA-256 of the API key: a copied database does not reveal the key.
  api_key_hash   TEXT NOT NULL UNIQUE,
  -- AES-256-GCM ciphertext of the secret key under the server key, which is not in the database.
  secret_key_enc TEXT NOT NULL,
  created_at     INTEGER NOT NULL
);

-- The installation's extended public key per network, and the next unused derivation index
-- (or destination tag, for tagged networks).
CREATE TABLE hd_accounts (
  network    TEXT PRIMARY KEY REFERENCES networks (name),
  xpub       TEXT NOT NULL,
  next_index INTEGER NOT NULL DEFAULT 0
);

-- Every receiving address ever handed out or pre-derived. payment_id is NULL while the address
-- waits in the pool; once set it never changes, so no address serves two payments.
CREATE TABLE addresses (
  id               INTEGER PRIMARY KEY,
  network          TEXT NOT NULL REFERENCES networks (name),
  address          TEXT NOT NULL,
  dest_tag         TEXT,
  derivation_index INTEGER,
  payment_id       TEXT UNIQUE,
  UNIQUE (network, address, dest_tag)
);
CREATE INDEX addresses_pool ON addresses (network, id) WHERE payment_id IS NULL;
-- UNIQUE above treats NULL tags as distinct, so derived addresses get their own guard.
CREATE UNIQUE INDEX addresses_untagged ON addresses (network, address) WHERE dest_tag IS NULL;

CREATE TABLE payments (
  id              TEXT PRIMARY KEY,
  merchant_id     TEXT NOT NULL REFERENCES merchants (id),
  asset_id        INTEGER NOT NULL REFERENCES assets (id),
  amount          TEXT NOT NULL,
  address_to      TEXT NOT NULL,
  dest_tag        TEXT,
  confirms_needed INTEGER NOT NULL,
  timeout         INTEGER NOT NULL,
  expires_at      INTEGER NOT NULL,
  checkout_url    TEXT,
  -- Stored status; OPEN past expires_at is reported EXPIRED whether or not the sweeper ran.
  status          TEXT NOT NULL CHECK (status IN ('OPEN', 'CONFIRMING', 'COMPLETE', 'EXPIRED')),
  customer_id     INTEGER,
  customer_name   TEXT,
  customer_email  TEXT,
  invoice         TEXT,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
);
CREATE INDEX payments_by_merchant ON payments (merchant_id, created_at DESC, id DESC);
CREATE INDEX payments_by_invoice ON payments (merchant_id, invoice);
CREATE INDEX payments_by_status ON payments (merchant_id, status, created_at DESC, id DESC);
CREATE INDEX payments_to_expire ON payments (expires_at) WHERE status = 'OPEN';

CREATE TABLE payment_transactions (
  id             INTEGER PRIMARY KEY,
  payment_id     TEXT NOT NULL REFERENCES payments (id),
  txn_id         TEXT NOT NULL,
  amount         TEXT NOT NULL,
  address_from   TEXT NOT NULL,
  address_to     TEXT NOT NULL,
  dest_tag       TEXT,
  confirmations  INTEGER NOT NULL,
  late           INTEGER NOT NULL CHECK (late IN (0, 1)),
  seen_at        INTEGER NOT NULL,
  UNIQUE (payment_id, txn_id)
);
CREATE INDEX payment_transactions_by_txn ON payment_transactions (txn_id);

CREATE TABLE withdrawals (
  id              TEXT PRIMARY KEY,
  merchant_id     TEXT NOT NULL REFERENCES merchants (id),
  asset_id        INTEGER NOT NULL REFERENCES assets (id),
  amount          TEXT NOT NULL,
  fee             TEXT NOT NULL,
  received_amount TEXT NOT NULL,
  address_to      TEXT NOT NULL,
  dest_tag        TEXT,
  address_from    TEXT,
  txn_id          TEXT,
  confirmations   INTEGER NOT NULL DEFAULT 0,
  status          TEXT NOT NULL CHECK (status IN ('OPEN', 'APPROVED', 'COMPLETE', 'CANCELLED')),
  customer_id     INTEGER,
  customer_name   TEXT,
  customer_email  TEXT,
  invoice         TEXT NOT NULL,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  UNIQUE (merchant_id, invoice)
);
CREATE INDEX withdrawals_by_merchant ON withdrawals (merchant_id, created_at DESC, id DESC);
CREATE INDEX withdrawals_by_status ON withdrawals (merchant_id, status, created_at DESC, id DESC);
CREATE INDEX withdrawals_by_txn ON withdrawals (txn_id) WHERE txn_id IS NOT NULL;
CREATE INDEX withdrawals_to_send ON withdrawals (id) WHERE status = 'APPROVED' AND txn_id IS NULL;

-- The merchant balance as a ledger: one row per credit or debit, each carrying the running
-- balance after it, so the balance is the last row and always equals the sum of the deltas.
CREATE TABLE ledger_entries (
  seq                    INTEGER PRIMARY KEY,
  merchant_id            TEXT NOT NULL REFERENCES merchants (id),
  asset_id               INTEGER NOT NULL REFERENCES assets (id),
  kind                   TEXT NOT NULL CHECK (kind IN ('payment-credit', 'withdrawal-reserve', 'withdrawal-release', 'withdrawal-send')),
  available_delta        TEXT NOT NULL,
  reserved_delta         TEXT NOT NULL,
  available_after        TEXT NOT NULL,
  reserved_after         TEXT NOT NULL,
  payment_transaction_id INTEGER REFERENCES payment_transactions (id),
  withdrawal_id          TEXT REFERENCES withdrawals (id),
  created_at             INTEGER NOT NULL
);
CREATE INDEX ledger_by_account ON ledger_entries (merchant_id, asset_id, seq DESC);
-- Each confirmed payment transaction is credited once; each withdrawal step happens once.
CREATE UNIQUE INDEX ledger_once_per_transaction ON ledger_entries (payment_transaction_id) WHERE payment_transaction_id IS NOT NULL;
CREATE UNIQUE INDEX ledger_once_per_withdrawal_step ON ledger_entries (withdrawal_id, kind) WHERE withdrawal_id IS NOT NULL;

-- Simulated chains (SIMULATOR=on): heights and transactions, kept here so they survive restarts.
CREATE TABLE sim_chains (
  network TEXT PRIMARY KEY REFERENCES networks (name),
  height  INTEGER NOT NULL
);

CREATE TABLE sim_transactions (
  txn_id       TEXT PRIMARY KEY,
  network      TEXT NOT NULL REFERENCES networks (name),
  asset_id     INTEGER NOT NULL REFERENCES assets (id),
  address_from TEXT NOT NULL,
  address_to   TEXT NOT NULL,
  dest_tag     TEXT,
  amount       TEXT NOT NULL,
  -- NULL while in the mempool.
  block_height INTEGER,
  dropped      INTEGER NOT NULL DEFAULT 0,
  -- The withdrawal this transaction pays out, so a repeated send is not broadcast twice.
  reference    TEXT UNIQUE,
  created_at   INTEGER NOT NULL
);
CREATE INDEX sim_transactions_by_height ON sim_transactions (network, block_height);
CREATE INDEX sim_transactions_mempool ON sim_transactions (network) WHERE block_height IS NULL AND dropped = 0;
