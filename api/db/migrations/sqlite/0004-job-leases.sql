-- Background jobs (expiry sweep, payout broadcast, simulated blocks) run in one process at a time:
-- the process holding a job's lease does it, and renews the lease while it lives. A lease that is
-- not renewed expires, and another process takes the job over.
CREATE TABLE job_leases (
  name       TEXT PRIMARY KEY,
  holder     TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
