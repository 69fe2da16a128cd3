/**
 * @module The payment list planner: the SQL text and parameters of a page or a count of a
 * merchant's payments for any set of filters, chosen so that no list walks the whole history.
 */
import { type Dialect, jsonTextList } from '../db/database.ts';
import { MAX_LIMIT } from '../shared/list-page.ts';
import { txnIdSpellings } from '../shared/ids.ts';
import { addressSpellings } from '../networks/address-codecs.ts';
import type { PaymentStatus } from './payment-status.ts';

/**
 * `readsExpired` in SQL (payment-status.ts, the rule's home): a stored OPEN payment whose expiry has
 * come (`@now` at or past `expires_at`) reads as EXPIRED until the sweep stores it so.
 */
export const OPEN_PAST_EXPIRY = openPastExpiry('status', 'expires_at');

function openPastExpiry(status: string, expiresAt: string): string {
  return `(${status} = 'OPEN' AND ${expiresAt} <= @now)`;
}

// The status and expiry columns as expressions no index serves: beside a filter that names its
// rows (ids, invoices, transaction ids, a search), the status rule is checked on those rows only,
// and the planner cannot prefer a walk of every OPEN payment (or of every one past its expiry).
const UNINDEXED_STATUS = "(status || '')";
const UNINDEXED_EXPIRES_AT = '(expires_at + 0)';

/** Filters of a payment list; arrays are OR-ed within a filter and filters AND-ed together. */
export interface PaymentFilters {
  ids?: string[];
  invoices?: string[];
  txnIds?: string[];
  statuses?: PaymentStatus[];
  /** One term matched against the id, the invoice, the receiving address and transaction ids (the dashboard's search). */
  search?: string;
}

/** A statement to run: its text (prepared once per text) and its named parameters. */
export interface PlannedQuery {
  text: string;
  params: Record<string, unknown>;
}

// Array filters arrive as one JSON parameter each, so every combination of filters is one fixed
// SQL text, prepared once.
function filterSql(dialect: Dialect) {
  return {
    ids: dialect.inJsonList('id', '@ids'),
    invoices: dialect.inJsonList('invoice', '@invoices'),
    txnIds: `id IN (SELECT payment_id FROM payment_transactions WHERE ${dialect.inJsonList('txn_id', '@txnIds')} AND dropped_at IS NULL)`,
    // A stored OPEN past its expiry is EXPIRED: the status filter must agree with what is reported.
    statuses: `((${dialect.inJsonList(UNINDEXED_STATUS, '@statuses')} AND NOT ${openPastExpiry(UNINDEXED_STATUS, UNINDEXED_EXPIRES_AT)})
      OR (${openPastExpiry(UNINDEXED_STATUS, UNINDEXED_EXPIRES_AT)} AND ${dialect.inJsonList("'EXPIRED'", '@statuses')}))`,
    // The payments a search term can name, each found by an index lookup: by id, by invoice, by
    // receiving address (through the address's own row: the payments carry no index on their
    // address, which would cost every create a page, migration 0105) and by transaction id. As
    // alternatives of one WHERE clause SQLite walked the merchant's whole history instead. An
    // address or a transaction id is looked up in each spelling it may be stored in (a short
    // list, so each is still an index lookup; LOWER() over the column would walk every row).
    search: `id IN (SELECT CAST(@searchId AS TEXT)
      UNION ALL SELECT id FROM payments WHERE merchant_id = @merchantId AND invoice = @search
      UNION ALL SELECT payment_id FROM addresses WHERE network IN (SELECT name FROM networks) AND ${dialect.inJsonList('address', '@searchAddresses')} AND payment_id IS NOT NULL
      UNION ALL SELECT payment_id FROM payment_transactions WHERE ${dialect.inJsonList('txn_id', '@searchTxnIds')} AND dropped_at IS NULL)`,
  } as const;
}
type FilterName = keyof ReturnType<typeof filterSql>;
const FILTER_NAMES: FilterName[] = ['ids', 'invoices', 'txnIds', 'statuses', 'search'];
const queryTexts = new Map<string, string>();

function filterParams(merchantId: string, filters: PaymentFilters, used: FilterName[], now: number): Record<string, unknown> {
  const params: Record<string, unknown> = { merchantId };
  for (const name of used) if (name !== 'search') params[name] = jsonTextList(filters[name]!);
  if (filters.search !== undefined) {
    // Ids are stored lower-case; an invoice is matched as typed; an address or a transaction id in
    // every spelling it may be stored in (hex in either case, Ethereum's with its checksum). A term
    // with NUL can be in no row (PostgreSQL refuses it as a parameter): it becomes the empty text,
    // which none holds.
    const term = filters.search.includes('\u0000') ? '' : filters.search;
    params.search = term;
    params.searchId = term.toLowerCase();
    params.searchAddresses = jsonTextList(addressSpellings(term));
    params.searchTxnIds = jsonTextList(txnIdSpellings(term));
  }
  if (used.includes('statuses')) params.now = now;
  return params;
}

// The filters that name payments directly (ids, invoices, transaction ids) bound a list by
// themselves, however long the merchant's history: a page or a count walks only what they name.
const SELECTIVE: FilterName[] = ['ids', 'invoices', 'txnIds', 'search'];

// One part of a page filtered by status alone: the newest rows of one condition, walked on one
// index, run only while `gate` holds (a condition on parameters alone). The gate sits in the
// LIMIT, which both databases evaluate once before the walk, and a LIMIT of 0 walks nothing; in the
// WHERE clause SQLite would check it on every row of a walk it does anyway.
interface StatusPart {
  condition: string;
  index: string;
  gate?: string;
  /** Read whole from the index, then sorted: ordered by an expression, so that PostgreSQL too reads the range instead of walking another index in order. */
  sorted?: boolean;
}

// OPEN payments split by expiry: those still running read OPEN, those past it read EXPIRED. Either
// side can be most of a merchant's history (a burst of creates nobody paid; a service stopped while
// they ran out), and no one index serves "newest first among those past expiry". Each side is read
// one of two ways, chosen by a probe of at most PROBE_SLACK + window entries of the expiry index:
// when the side is that small, all of it from the expiry index, sorted; otherwise the newest OPEN
// rows in order of the status index, skipping those of the other side, which are then the few (or
// older: a payment expires after it is created, so the newest OPEN rows are the running ones).
const PROBE_SLACK = 200;
// The complement of OPEN_PAST_EXPIRY among OPEN payments, written as a range of the expiry index.
const OPEN_RUNNING = "(status = 'OPEN' AND expires_at > @now)";

function openParts(dialect: Dialect, condition: string): StatusPart[] {
  const few = `(SELECT COUNT(*) FROM (SELECT 1 FROM payments${dialect.indexedBy('payments_open_by_expiry')}
    WHERE merchant_id = @merchantId AND ${condition} LIMIT @probe) AS probe) < @probe`;
  return [
    { condition, index: 'payments_open_by_expiry', gate: few, sorted: true },
    { condition, index: 'payments_by_status', gate: `NOT ${few}` },
  ];
}

// A stored status's rows, newest first, as the status filter reports them: an OPEN payment past its
// expiry reads as EXPIRED.
function statusParts(dialect: Dialect, status: PaymentStatus): StatusPart[] {
  switch (status) {
    case 'OPEN':
      return openParts(dialect, OPEN_RUNNING);
    case 'EXPIRED':
      return [{ condition: "status = 'EXPIRED'", index: 'payments_by_status' }, ...openParts(dialect, OPEN_PAST_EXPIRY)];
    default:
      return [{ condition: `status = '${status}'`, index: 'payments_by_status' }];
  }
}
const STATUS_ORDER: PaymentStatus[] = ['OPEN', 'CONFIRMING', 'COMPLETE', 'EXPIRED'];

/**
 * How many OPEN payments of the merchant are past their expiry, as SQL: the minutes of expiry
 * before the current one from the counts kept per minute (open_payment_expiries: only minutes
 * holding unswept payments have a row), the current minute's on the expiry index. Neither grows
 * with the number of OPEN payments: at most a row per past minute still holding unswept payments,
 * and the payments expiring in one minute.
 */
function unsweptSql(dialect: Dialect): string {
  return `((SELECT COALESCE(SUM(n), 0) FROM open_payment_expiries WHERE merchant_id = @merchantId AND minute < @expiryMinute)
    + (SELECT COUNT(*) FROM payments${dialect.indexedBy('payments_open_by_expiry')}
        WHERE merchant_id = @merchantId AND status = 'OPEN' AND expires_at >= @minuteStart AND expires_at <= @now))`;
}
const MINUTE_MS = 60_000;

// The SQL of a count or a page, built once per dialect, filter set and limit (and, for a list
// filtered by status alone, per set of statuses).
function listSql(dialect: Dialect, kind: 'count' | 'page', used: FilterName[], limit = 0, statuses: readonly PaymentStatus[] = []): string {
  const byStatusAlone = used.includes('statuses') && !used.some((f) => SELECTIVE.includes(f));
  const key = `${dialect.name}|${kind}|${used.join(',')}|${limit}|${byStatusAlone ? statuses.join(',') : ''}`;
  let text = queryTexts.get(key);
  if (text === undefined) {
    text = byStatusAlone || used.length === 0 ? unboundedListSql(dialect, kind, statuses, used.length === 0, limit) : boundedListSql(dialect, kind, used, limit);
    queryTexts.set(key, text);
  }
  return text;
}

// Filtered by ids, invoices, transaction ids or a search: those name the rows, whatever else is asked.
function boundedListSql(dialect: Dialect, kind: 'count' | 'page', used: FilterName[], limit: number): string {
  const filters = filterSql(dialect);
  // Ids, transaction ids and a search name rows by primary key: the merchant is then checked on
  // those rows, as an expression no index serves, or SQLite (without statistics) may walk every row
  // of the merchant in one of its indexes instead. Invoices look up within the merchant.
  const byKey = used.includes('ids') || used.includes('txnIds') || used.includes('search');
  const where = [byKey ? "(merchant_id || '') = @merchantId" : 'merchant_id = @merchantId', ...used.map((f) => filters[f])].join(' AND ');
  // The limit is written into the SQL: with a LIMIT SQLite knows when it prepares the statement,
  // a filtered page is sorted in a bounded top-N structure, about twice as fast (measured) as
  // with a bound parameter. The named rows are few, so they are sorted: ordered by the bare
  // column, SQLite may prefer walking the merchant's whole history in index order to skip the sort.
  return kind === 'count'
    ? `SELECT COUNT(*) AS total FROM payments WHERE ${where}`
    : `SELECT id, version, status, expires_at, created_at FROM payments WHERE ${where} ORDER BY (created_at + 0) DESC, id DESC LIMIT ${limit} OFFSET @offset`;
}

// No filter, or statuses alone: the history can be any size, so nothing may walk it. The total is
// the sum of the counts kept per status (payment_status_counts), corrected by the OPEN payments
// past expiry not yet swept (unsweptSql). A page merges, per status, the newest offset + limit
// rows of that status (statusParts): the cost of page n does not depend on the history.
function unboundedListSql(dialect: Dialect, kind: 'count' | 'page', statuses: readonly PaymentStatus[], all: boolean, limit: number): string {
  const wanted = all ? STATUS_ORDER : STATUS_ORDER.filter((s) => statuses.includes(s));
  if (kind === 'count') {
    const stored = wanted.map((s) => `'${s}'`).join(', ');
    const sum = `(SELECT COALESCE(SUM(n), 0) FROM payment_status_counts WHERE merchant_id = @merchantId AND status IN (${stored}))`;
    const unswept = unsweptSql(dialect);
    // Stored OPEN counts them, but they read as EXPIRED.
    const correction = wanted.includes('OPEN') === wanted.includes('EXPIRED') ? '' : wanted.includes('OPEN') ? ` - ${unswept}` : ` + ${unswept}`;
    return `SELECT ${sum}${correction} AS total`;
  }
  if (all) return `SELECT id, version, status, expires_at, created_at FROM payments WHERE merchant_id = @merchantId ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET @offset`;
  const parts = wanted.flatMap((s) => statusParts(dialect, s));
  const union = parts
    .map(
      ({ condition, index, gate, sorted }, i) =>
        `SELECT * FROM (SELECT id, version, status, expires_at, created_at FROM payments${dialect.indexedBy(index)}
          WHERE merchant_id = @merchantId AND ${condition}
          ORDER BY ${sorted ? '(created_at + 0)' : 'created_at'} DESC, id DESC LIMIT ${gate ? `CASE WHEN ${gate} THEN @window ELSE 0 END` : '@window'}) AS part${i}`,
    )
    .join(' UNION ALL ');
  return `SELECT id, version, status, expires_at, created_at FROM (${union}) AS merged ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET @offset`;
}

/** The SQL and parameters of one page of a merchant's matching payments (stamps and creation time), newest first. */
export function planPage(dialect: Dialect, merchantId: string, filters: PaymentFilters, now: number, offset: number, limit: number): PlannedQuery {
  // The limit is written into the SQL text: a bounded set of texts is prepared and kept.
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new Error(`page limit ${limit} is not a whole number from 1 to ${MAX_LIMIT}`);
  const used = FILTER_NAMES.filter((name) => filters[name] !== undefined);
  const text = listSql(dialect, 'page', used, limit, filters.statuses ?? []);
  const params: Record<string, unknown> = { ...filterParams(merchantId, filters, used, now), offset };
  if (text.includes('@window')) params.window = offset + limit;
  if (text.includes('@probe')) params.probe = offset + limit + PROBE_SLACK;
  return { text, params: onlyUsed(text, { ...params, now }) };
}

/** The SQL and parameters of the number of a merchant's matching payments. */
export function planCount(dialect: Dialect, merchantId: string, filters: PaymentFilters, now: number): PlannedQuery {
  const used = FILTER_NAMES.filter((name) => filters[name] !== undefined);
  const text = listSql(dialect, 'count', used, 0, filters.statuses ?? []);
  const expiryMinute = Math.floor(now / MINUTE_MS);
  return { text, params: onlyUsed(text, { ...filterParams(merchantId, filters, used, now), now, expiryMinute, minuteStart: expiryMinute * MINUTE_MS }) };
}

// Named parameters the text does not name are refused by the drivers: keep only the named ones.
function onlyUsed(text: string, params: Record<string, unknown>): Record<string, unknown> {
  for (const name of ['now', 'statuses', 'expiryMinute', 'minuteStart']) if (!text.includes(`@${name}`)) delete params[name];
  return params;
}

const PARAMETER = /@([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * Pages planned with one text (`planPage`), as one statement for a database that joins LATERAL
 * (PostgreSQL): each page's parameters are one JSON object of the `@batch` list, and the page's
 * statement runs once per object, reading its `@name`s from it (whole numbers as bigint, texts as
 * text). Rows carry `batch_index`, the page's place in `pages` from 1, and come ordered by it,
 * each page's rows newest first. Undefined when the pages cannot go together: a text with
 * positional parameters, or parameters other than texts and whole numbers, or of different kinds
 * from page to page.
 */
export function planPagesTogether(text: string, pages: ReadonlyArray<Record<string, unknown>>): PlannedQuery | undefined {
  if (text.includes('?') || pages.length === 0) return undefined;
  const kinds = new Map<string, 'text' | 'bigint'>();
  for (const [name, value] of Object.entries(pages[0]!)) {
    if (typeof value === 'string') kinds.set(name, 'text');
    else if (Number.isSafeInteger(value)) kinds.set(name, 'bigint');
    else return undefined;
  }
  for (const page of pages) {
    const names = Object.keys(page);
    if (names.length !== kinds.size) return undefined;
    for (const name of names) {
      const value = page[name];
      if (kinds.get(name) !== (typeof value === 'string' ? 'text' : Number.isSafeInteger(value) ? 'bigint' : undefined)) return undefined;
    }
  }
  let complete = true;
  const inner = text.replace(PARAMETER, (_match, name: string) => {
    const kind = kinds.get(name);
    if (kind === undefined) complete = false;
    return kind === 'bigint' ? `CAST(batch.p->>'${name}' AS bigint)` : `(batch.p->>'${name}')`;
  });
  if (!complete) return undefined;
  return {
    text: `SELECT batch.n AS batch_index, page.id, page.version, page.status, page.expires_at
      FROM json_array_elements(CAST(@batch AS json)) WITH ORDINALITY AS batch(p, n) CROSS JOIN LATERAL (${inner}) AS page
      ORDER BY batch.n, page.created_at DESC, page.id DESC`,
    params: { batch: JSON.stringify(pages) },
  };
}
