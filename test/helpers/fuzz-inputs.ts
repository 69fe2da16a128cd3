/**
 * Seeded generators of hostile request inputs for the fuzz tests. Every random choice goes through
 * one `Rng`, so a failing run is replayed exactly by its seed.
 */
import { createHash, randomInt } from 'node:crypto';
import type { Database, Sql } from '../../api/db/database.ts';

/** A deterministic random source (mulberry32). */
export interface Rng {
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** A whole number in [min, max]. */
  int(min: number, max: number): number;
  /** One item of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** True with probability `p`. */
  chance(p: number): boolean;
}

/** Creates the random source for a seed. */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    seed,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (p) => next() < p,
  };
}

/**
 * The seed of a run: FUZZ_SEED when set (a number to replay a failure, or "random" for a fresh
 * one, as the soak run does), else `fallback`, so `npm test` is the same run every time.
 */
export function fuzzSeed(fallback: number): number {
  const raw = process.env.FUZZ_SEED;
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'random') return randomInt(2 ** 32);
  if (!/^[0-9]+$/.test(raw)) throw new Error(`FUZZ_SEED must be a whole number or "random", got "${raw}"`);
  return Number(raw) >>> 0;
}

/**
 * Strings a free-text field must accept and store byte for byte: markup, SQL, template syntax,
 * path tricks and Unicode that is unusual but well-formed. None has a control character, none is
 * blank, none is longer than 200 characters (code points, as the API counts).
 */
export const HOSTILE_TEXT: readonly string[] = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(document.domain)>',
  "'><svg/onload=alert(1)>",
  '<iframe src="javascript:alert(1)"></iframe>',
  '</textarea></title><a href="javascript:alert(1)">x</a>',
  '&lt;b&gt;entity&amp;amp;',
  "'; DROP TABLE payments; --",
  "' OR '1'='1",
  '" OR ""="',
  "1; SELECT * FROM merchants --",
  "Robert'); DELETE FROM ledger_entries WHERE ('1'='1",
  "' UNION SELECT api_key_hash, secret_key_enc FROM merchants --",
  '%27%20OR%201%3D1--',
  '${7*7}{{7*7}}<%= 7*7 %>#{7*7}',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%s%s%s%n%x',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  'NaN',
  '0',
  '-1',
  'Ω≈ç√∫˜µ≤≥÷',
  '田中さんにあげて下さい',
  'مرحبا بالعالم',
  '👩‍👩‍👧‍👦🏳️‍🌈🇺🇦',
  'a\u202eRTL-override\u202c',
  'zero\u200bwidth\u200djoiner',
  '\ufeffbyte-order-mark',
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇',
  'x'.repeat(200),
  '😀'.repeat(200),
  '  padded  ',
  '\\u0000 is only written here',
];

/** Values a free-text field (≤ 200 characters) must refuse. */
export const BAD_TEXT: readonly unknown[] = [
  '',
  '   ',
  'nul\u0000byte',
  'bell\u0007',
  'line\nbreak',
  'carriage\rreturn',
  'tab\there',
  'delete\u007f',
  'next-line\u0085',
  'line\u2028separator',
  'lone \ud800 surrogate',
  'reversed \udc00\ud800 pair',
  'x'.repeat(201),
  '😀'.repeat(201),
  42,
  0,
  true,
  [],
  ['text'],
  {},
  { text: 'x' },
];

/** JSON values of every type, for fields that want something else. */
export const WRONG_TYPES: readonly unknown[] = [0, -1, 1.5, 1e308, true, false, [], [1, 2], {}, { a: 1 }, 'string', ''];

/** Amounts no asset accepts: signs, exponents, separators, zero, over the limit, not strings. */
export const BAD_AMOUNTS: readonly unknown[] = [
  '-1',
  '-0.5',
  '+1',
  '1e5',
  '1E-8',
  '1e400',
  '0',
  '0.0',
  '0.00000000',
  '',
  ' ',
  ' 1',
  '1 ',
  '1.',
  '.5',
  '0x10',
  '1,5',
  '1_000',
  '1.0.0',
  '--1',
  '1/2',
  'Infinity',
  'NaN',
  '١٢٣',
  '１２',
  '1000000000.1',
  '1000000001',
  '99999999999999999999',
  '9'.repeat(41),
  '1\u0000',
  '<script>alert(1)</script>',
  "1' OR '1'='1",
  1,
  0.1,
  1e21,
  -1,
  null,
  true,
  [],
  ['1'],
  { value: '1' },
];

/** Amounts with more fractional digits than an asset of `decimals` allows. */
export function tooFineAmounts(decimals: number): string[] {
  return [`1.${'0'.repeat(decimals)}1`, `0.${'0'.repeat(decimals)}1`, `1.${'0'.repeat(decimals + 1)}`, `0.${'1'.repeat(decimals + 5)}`];
}

/** A valid amount for an asset of `decimals`: positive, at most one billion, never too fine. */
export function validAmount(rng: Rng, decimals: number): string {
  if (rng.chance(0.2)) {
    return rng.pick(['1000000000', '0001', '1', decimals > 0 ? `0.${'0'.repeat(decimals - 1)}1` : '1', decimals > 0 ? `1000000000.${'0'.repeat(decimals)}` : '1000000000']);
  }
  const whole = String(rng.int(0, 5000));
  const places = rng.int(0, decimals);
  const amount = places > 0 ? `${whole}.${Array.from({ length: places }, () => rng.int(0, 9)).join('')}` : whole;
  return /[1-9]/.test(amount) ? amount : '1';
}

/** Values that do not name a payment or withdrawal, as path segments (already percent-encoded). */
export const BAD_ID_SEGMENTS: readonly string[] = [
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-4fff-bfff-ffffffffffff',
  '6F1C2E8A-4B1D-4C55-9A7E-2F5A4C3B2A10',
  '6f1c2e8a4b1d4c559a7e2f5a4c3b2a10',
  '{6f1c2e8a-4b1d-4c55-9a7e-2f5a4c3b2a10}',
  '6f1c2e8a-4b1d-4c55-9a7e-2f5a4c3b2a10%20',
  '%20',
  '0',
  '-1',
  '1e9',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  encodeURIComponent("' OR '1'='1"),
  encodeURIComponent('1; DROP TABLE payments; --'),
  encodeURIComponent('<script>alert(1)</script>'),
  encodeURIComponent('../../etc/passwd'),
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e',
  '%00',
  '%0d%0aSet-Cookie:%20x=1',
  encodeURIComponent('😀'),
  'a'.repeat(3000),
  '%',
  '%zz',
  '%E0%A4%A',
  '%C0%AF',
  '%ED%A0%80',
  '%FF%FE',
];

/** Query strings of list endpoints that are refused, whatever the endpoint (400 validation-failed). */
export const BAD_LIST_QUERIES: readonly string[] = [
  'page=-1',
  'page=abc',
  'page=1.5',
  'page=1e2',
  'page=',
  'page=%201',
  'page=9999999999',
  'page=1&page=2',
  'limit=0',
  'limit=101',
  'limit=-5',
  'limit=ten',
  'limit=20&limit=30',
  'limit=1e1',
  'statuses=open',
  'statuses=PAID',
  `statuses=${encodeURIComponent("OPEN' OR '1'='1")}`,
  'statuses[]=%3Cscript%3E',
  // A known parameter in a form the list does not read is refused, never dropped.
  'page[]=0',
  'statuses[a]=OPEN',
  'ids[foo]=x',
  `ids=${'a'.repeat(201)}`,
  `invoices=${'b'.repeat(201)}`,
  `txnIds=${Array.from({ length: 101 }, (_, i) => `t${i}`).join(',')}`,
  `ids=${Array.from({ length: 101 }, (_, i) => `id${i}`).join('&ids=')}`,
  'ids=%00',
  'invoices=order%001',
  'txnIds=%C2%9B',
];

/** Query strings of list endpoints that must be answered 200 (filters that match nothing, unknown keys). */
export const HARMLESS_LIST_QUERIES: readonly string[] = [
  '',
  'limit=1',
  'limit=100',
  'page=3',
  'foo=bar',
  '__proto__[x]=1',
  'constructor=1',
  `ids=${encodeURIComponent("' OR '1'='1")}`,
  `invoices=${encodeURIComponent('<script>alert(1)</script>')}`,
  `invoices[]=${encodeURIComponent("'; DROP TABLE payments; --")}`,
  `txnIds[0]=${encodeURIComponent('0x' + 'f'.repeat(64))}`,
  'txnIds=1,2,3',
  'ids=,,,',
  'ids=%',
  'ids=%zz',
  `ids=${encodeURIComponent('😀')}`,
  'statuses=OPEN,COMPLETE',
  'statuses=OPEN&statuses=OPEN',
  `unknown=${'z'.repeat(2000)}`,
];

/** Bytes that are not valid JSON, made from a valid body. */
export function brokenJson(rng: Rng, valid: string): Buffer {
  const variants: Array<() => string | Buffer> = [
    () => valid.slice(0, rng.int(1, Math.max(1, valid.length - 1))),
    () => valid + '}',
    () => valid.replace(/"/, "'"),
    () => valid.replace(/:/, ''),
    () => valid.replace(/,/, ',,'),
    () => valid.replace(/\}$/, ',}'),
    () => `${valid}${valid}`,
    () => `{"amount": 1e}`,
    () => '{"a": NaN}',
    () => '{"a": undefined}',
    () => "{a: 'unquoted'}",
    () => '/* comment */ {}',
    () => '{"a": "unterminated}',
    () => '{"a": "\\x41"}',
    () => '{"a": "\\ud800\\"}',
    () => '\u0000',
    () => 'null null',
    () => '<xml/>',
    () => 'amount=1&asset=BTC',
    () => Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
    () => Buffer.from([0xed, 0xa0, 0x80]),
    () => Buffer.from(valid, 'utf16le'),
  ];
  const made = rng.pick(variants)();
  return typeof made === 'string' ? Buffer.from(made, 'utf8') : made;
}

/** Content types a JSON endpoint refuses with 415. */
export const BAD_CONTENT_TYPES: readonly (string | undefined)[] = [
  undefined,
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json-patch+json',
  'application/jsonp',
  'application/json; charset=iso-8859-1',
  'application/json; charset=utf-16',
  'application/json, text/plain',
  'json',
  '*/*',
  '',
];

/** A JSON body larger than the 64 KiB limit, of the given shape. */
export function oversizedBody(rng: Rng, base: Record<string, unknown>): string {
  const size = rng.pick([64 * 1024 + 1, 70 * 1024, 200 * 1024, 1024 * 1024]);
  const body = JSON.stringify({ ...base, invoice: '' });
  return body.replace('"invoice":""', `"invoice":"${'A'.repeat(size - body.length + 2)}"`);
}

/** JSON nested `depth` levels deep. */
export function deepJson(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/**
 * Every table of the schema, each with a key that orders its rows the same way on every read (the
 * primary key). Listed here rather than read from the catalogue, which differs between databases;
 * `tableCounts` fails on a table missing here, so a new table cannot slip past the digest.
 */
export const TABLE_KEYS: Readonly<Record<string, string>> = {
  schema_migrations: 'version',
  networks: 'name',
  assets: 'id',
  merchants: 'id',
  hd_accounts: 'network',
  addresses: 'id',
  payments: 'id',
  payment_transactions: 'id',
  withdrawals: 'id',
  ledger_entries: 'seq',
  sim_chains: 'network',
  sim_transactions: 'txn_id',
  job_leases: 'name',
  merchant_previous_keys: 'api_key_hash',
  payment_status_counts: 'merchant_id, status, slot',
  open_payment_expiries: 'merchant_id, minute, slot',
  webhook_endpoints: 'id',
  webhook_events: 'id',
  webhook_deliveries: 'seq',
  webhook_attempts: 'id',
  chain_cursors: 'network',
  chain_transactions: 'network, txn_id',
  chain_blocks: 'network, height',
  chain_outputs: 'network, txn_id, vout',
  payout_transactions: 'withdrawal_id',
  eth_nonces: 'address',
  refunds: 'id',
  mail_outbox: 'id',
  dashboard_users: 'id',
  dashboard_sessions: 'token_hash',
  dashboard_sign_in_failures: 'email_hash',
};

/**
 * Tables that record requests rather than the business: every request counts in a rate-limit
 * window, refused or not, and an idempotent request's answer is kept even when it is a refusal
 * (so that it can be replayed). Left out of the digest on purpose.
 */
export const BOOKKEEPING_TABLES: readonly string[] = ['idempotency_keys', 'rate_limit_windows'];

/** The names of every table the database holds, from its own catalogue. */
async function tablesInDatabase(sql: Sql): Promise<string[]> {
  const rows =
    sql.dialect.name === 'sqlite'
      ? await sql.all<{ name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
      : await sql.all<{ name: string }>('SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename');
  return rows.map((row) => row.name);
}

/** Fails when the schema has a table TABLE_KEYS does not list (or lists one it lacks). */
async function assertTablesListed(sql: Sql): Promise<void> {
  const actual = (await tablesInDatabase(sql)).sort();
  const listed = [...Object.keys(TABLE_KEYS), ...BOOKKEEPING_TABLES].sort();
  if (JSON.stringify(actual) !== JSON.stringify(listed)) {
    throw new Error(`the digest lists tables ${listed.join(', ')}, but the database has ${actual.join(', ')}: update TABLE_KEYS in test/helpers/fuzz-inputs.ts`);
  }
}

/**
 * A digest of every row of every table, read in one snapshot: equal digests mean an unchanged
 * database. Checks first that every table of the schema is in the digest.
 */
export async function databaseDigest(db: Database): Promise<string> {
  return db.snapshot(async (tx) => {
    await assertTablesListed(tx);
    const hash = createHash('sha256');
    for (const [name, key] of Object.entries(TABLE_KEYS)) {
      hash.update(`\u0000${name}\u0000`);
      for (const row of await tx.all<Record<string, unknown>>(`SELECT * FROM ${name} ORDER BY ${key}`)) hash.update(JSON.stringify(Object.values(row)));
    }
    return hash.digest('hex');
  });
}

/** Row counts of every table, for a readable failure message next to a digest mismatch. */
export async function tableCounts(db: Database): Promise<Record<string, number>> {
  return db.snapshot(async (tx) => {
    const counts: Record<string, number> = {};
    for (const name of Object.keys(TABLE_KEYS)) counts[name] = Number((await tx.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${name}`))!.n);
    return counts;
  });
}
