-- The merchant dashboard: its users (created by the operator), their sessions, and failed sign-ins
-- counted per e-mail for the throttle.

-- A person who signs in to one merchant's dashboard. `email` is stored lower-cased (one account per
-- address); `password_hash` is a scrypt hash with its parameters and salt, never the password.
CREATE TABLE dashboard_users (
  id            TEXT PRIMARY KEY,
  merchant_id   TEXT NOT NULL REFERENCES merchants(id),
  email         TEXT NOT NULL UNIQUE,
  role          TEXT NOT NULL CHECK (role IN ('owner', 'viewer')),
  password_hash TEXT NOT NULL,
  created_at    BIGINT NOT NULL
);
CREATE INDEX dashboard_users_merchant ON dashboard_users (merchant_id, created_at);

-- A signed-in browser. `token_hash` is the SHA-256 of the cookie's value (a copied database holds no
-- usable session); `csrf_token` must come back on every change. Idle past its limit, it is refused.
CREATE TABLE dashboard_sessions (
  token_hash   TEXT PRIMARY KEY,
  user_id      TEXT NOT NULL REFERENCES dashboard_users(id) ON DELETE CASCADE,
  csrf_token   TEXT NOT NULL,
  created_at   BIGINT NOT NULL,
  last_seen_at BIGINT NOT NULL
);
CREATE INDEX dashboard_sessions_user ON dashboard_sessions (user_id);
CREATE INDEX dashboard_sessions_idle ON dashboard_sessions (last_seen_at);

-- Failed sign-ins per e-mail (its SHA-256, known or not) since `window_start`.
CREATE TABLE dashboard_sign_in_failures (
  email_hash   TEXT PRIMARY KEY,
  window_start BIGINT NOT NULL,
  failures     BIGINT NOT NULL
);
