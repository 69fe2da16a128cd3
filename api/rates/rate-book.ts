/**
 * @module The rate book: the latest quote of every source for every pair in use, refreshed in the
 * background, and the median of the fresh ones. A create reads the book and never waits on a
 * source, except once for a pair not yet asked for (bounded by the source timeout); concurrent
 * asks for the same pair share that one fetch, so a burst of creates makes one request per source.
 * Each instance keeps its own book: any instance's fresh quotes are good enough, and the rate a
 * payment used is stored with it.
 */
import type { Clock } from '../shared/clock.ts';
import type { Logger } from '../shared/logger.ts';
import { median } from './median.ts';
import { RatesUnavailable, UnsupportedCurrency } from './rate-errors.ts';
import type { PairOutcome, RatePair, RateSource, RateSourceName } from './rate-source.ts';

/** A rate as the book gives it: the median of the fresh quotes, before any spread. */
export interface Rate {
  /** Currency units per one asset unit. */
  value: string;
  currency: string;
  /** The sources whose fresh quotes the median used, in configured order. */
  sources: readonly RateSourceName[];
  /** Epoch ms of the oldest quote used. */
  at: number;
}

/** How a source stands, for /health. */
export interface SourceHealth {
  /** `ok`: its last round answered every pair; `failing`: some could not be used; `unused`: nothing asked yet. */
  status: 'ok' | 'failing' | 'unused';
  /** Epoch ms of its last usable answer. */
  lastSuccessAt: number | null;
  /** Why its last round failed, if it did. */
  error: string | null;
}

/** What the book is built from. */
export interface RateBookOptions {
  sources: readonly RateSource[];
  clock: Clock;
  logger: Logger;
  /** Quotes older than this are not used (RATE_MAX_AGE_SECONDS). */
  maxAgeMs: number;
  /** Background refresh period (RATE_REFRESH_SECONDS). */
  refreshMs: number;
  /** How long one round of asking may take (3 s: the contract's "slow"). */
  timeoutMs: number;
  /** The tickers of the served assets, refreshed for every currency in use. */
  tickers(): readonly string[];
}

/** A currency nobody asked for in this long leaves the background refresh. */
export const CURRENCY_IDLE_MS = 3_600_000;

interface PairState {
  quotes: Map<RateSourceName, { value: string; at: number }>;
  answers: Map<RateSourceName, PairOutcome['kind']>;
  /**
   * The last rate worked out from `quotes`, and the times it holds for: from when it was worked out
   * (a quote too old then stays too old later) until its oldest quote is too old. New quotes drop it.
   */
  worked?: { rate: Rate; from: number; until: number };
}

const keyOf = (pair: RatePair) => `${pair.short}/${pair.currency}`;

/** Creates an empty rate book over `sources`. */
export function createRateBook(options: RateBookOptions) {
  const { sources, clock, logger } = options;
  const pairs = new Map<string, PairState>();
  const pending = new Map<string, Promise<void>>();
  // Currencies in use, with when each was last asked for.
  const currencies = new Map<string, number>();
  const health = new Map<RateSourceName, SourceHealth>(sources.map((s) => [s.name, { status: 'unused', lastSuccessAt: null, error: null }]));
  let refreshing: Promise<void> | undefined;

  function record(source: RateSourceName, asked: readonly RatePair[], outcomes: readonly PairOutcome[], at: number): void {
    const failures: string[] = [];
    asked.forEach((pair, i) => {
      const outcome = outcomes[i] ?? { kind: 'failed', reason: 'no outcome' };
      let state = pairs.get(keyOf(pair));
      if (!state) pairs.set(keyOf(pair), (state = { quotes: new Map(), answers: new Map() }));
      state.answers.set(source, outcome.kind);
      state.worked = undefined;
      if (outcome.kind === 'quote') state.quotes.set(source, { value: outcome.value, at });
      else if (outcome.kind === 'not-quoted') state.quotes.delete(source);
      else failures.push(`${pair.short}/${pair.currency}: ${outcome.reason}`);
    });
    const previous = health.get(source)!;
    const answered = failures.length < asked.length;
    health.set(source, {
      status: failures.length === 0 ? 'ok' : 'failing',
      lastSuccessAt: answered ? at : previous.lastSuccessAt,
      error: failures[0] ?? null,
    });
    if (failures.length > 0) logger.warn({ source, failed: failures.length, of: asked.length, first: failures[0] }, 'rate source skipped');
  }

  // One round: every source asked for `asked` at once, within the timeout.
  async function ask(asked: readonly RatePair[]): Promise<void> {
    const signal = AbortSignal.timeout(options.timeoutMs);
    await Promise.all(
      sources.map(async (source) => {
        let outcomes: PairOutcome[];
        try {
          outcomes = await source.quote(asked, signal);
        } catch (err) {
          outcomes = asked.map(() => ({ kind: 'failed', reason: err instanceof Error ? err.message : String(err) }));
        }
        record(source.name, asked, outcomes, clock());
      }),
    );
  }

  // Asks for the pairs not already being asked for, and waits for every pair's round.
  async function fetchShared(wanted: readonly RatePair[]): Promise<void> {
    const fresh = wanted.filter((pair) => !pending.has(keyOf(pair)));
    if (fresh.length > 0) {
      const round = ask(fresh).finally(() => {
        for (const pair of fresh) if (pending.get(keyOf(pair)) === round) pending.delete(keyOf(pair));
      });
      for (const pair of fresh) pending.set(keyOf(pair), round);
    }
    await Promise.all(wanted.map((pair) => pending.get(keyOf(pair))));
  }

  // A pair no source has answered for yet is asked for now, once (concurrent asks share the round);
  // a pair already answered is read from the book as it is, never waiting on a source.
  async function ensure(wanted: readonly RatePair[]): Promise<void> {
    const now = clock();
    for (const pair of wanted) currencies.set(pair.currency, now);
    const unanswered = wanted.filter((pair) => !pairs.has(keyOf(pair)));
    if (unanswered.length > 0) await fetchShared(unanswered);
  }

  // Every fiat-priced create reads its pair's rate: the median (decimal arithmetic, a sort) is
  // worked out again only when the quotes changed or one of those it used became too old.
  function freshRate(pair: RatePair, now: number): Rate | undefined {
    const state = pairs.get(keyOf(pair));
    if (!state) return undefined;
    const worked = state.worked;
    if (worked && now >= worked.from && now <= worked.until) return worked.rate;
    const used = sources.flatMap((source) => {
      const quote = state.quotes.get(source.name);
      return quote && now - quote.at <= options.maxAgeMs ? [{ source: source.name, ...quote }] : [];
    });
    if (used.length === 0) return undefined;
    const at = Math.min(...used.map((q) => q.at));
    // Frozen: every caller until the quotes change gets this same object.
    const rate: Rate = Object.freeze({ value: median(used.map((q) => q.value)), currency: pair.currency, sources: Object.freeze(used.map((q) => q.source)), at });
    state.worked = { rate, from: now, until: at + options.maxAgeMs };
    return rate;
  }

  /**
   * One background round: every served ticker in every currency asked for within the last hour
   * (a currency idle longer leaves the book). While a round runs, another is not started.
   */
  function refresh(): Promise<void> {
    if (refreshing) return refreshing;
    const now = clock();
    for (const [currency, askedAt] of currencies) {
      if (now - askedAt <= CURRENCY_IDLE_MS) continue;
      currencies.delete(currency);
      for (const key of pairs.keys()) if (key.endsWith(`/${currency}`)) pairs.delete(key);
    }
    const wanted = [...currencies.keys()].flatMap((currency) => options.tickers().map((short) => ({ short, currency })));
    if (wanted.length === 0) return Promise.resolve();
    const round = ask(wanted).finally(() => {
      refreshing = undefined;
      for (const pair of wanted) if (pending.get(keyOf(pair)) === round) pending.delete(keyOf(pair));
    });
    // A first ask for one of these pairs meanwhile waits for this round instead of starting its own.
    for (const pair of wanted) if (!pending.has(keyOf(pair))) pending.set(keyOf(pair), round);
    refreshing = round;
    return round;
  }

  return {
    /** The rate of `short` in `currency` now; throws UnsupportedCurrency or RatesUnavailable when there is none. */
    async rate(short: string, currency: string): Promise<Rate> {
      const pair = { short, currency };
      await ensure([pair]);
      const rate = freshRate(pair, clock());
      if (rate) return rate;
      const answers = pairs.get(keyOf(pair))?.answers;
      if (answers && sources.every((source) => answers.get(source.name) === 'not-quoted')) throw new UnsupportedCurrency(currency, short);
      throw new RatesUnavailable(
        currency,
        short,
        sources.map((s) => s.name),
        Math.ceil(options.refreshMs / 1000),
      );
    },

    /** The fresh rate of every ticker in `currency` that has one (asked for now if the currency is new). */
    async rates(currency: string, tickers: readonly string[]): Promise<Map<string, Rate>> {
      await ensure(tickers.map((short) => ({ short, currency })));
      const now = clock();
      const found = new Map<string, Rate>();
      for (const short of tickers) {
        const rate = freshRate({ short, currency }, now);
        if (rate) found.set(short, rate);
      }
      return found;
    },

    /** One background round now (the timer's work; tests call it to move quotes on). */
    refresh,

    /** How each source stands (for /health), in configured order. */
    health(): Array<{ name: RateSourceName } & SourceHealth> {
      return sources.map((source) => ({ name: source.name, ...health.get(source.name)! }));
    },

    /** Starts the background refresh (one round now, then every `refreshMs`); the function stops it. */
    startRefreshing(): () => Promise<void> {
      const run = () => void refresh().catch((err: unknown) => logger.error({ err }, 'rate refresh failed'));
      run();
      const timer = setInterval(run, options.refreshMs);
      return async () => {
        clearInterval(timer);
        await refreshing?.catch(() => {});
      };
    },
  };
}

/** The rate book's interface. */
export type RateBook = ReturnType<typeof createRateBook>;
