/**
 * Loopback stand-ins for the public rate sources, each answering in its documented format (Coinbase
 * exchange-rates, Kraken Ticker with its pair keys, Bitstamp ticker v2, CoinGecko simple price),
 * with prices the test sets and the failures seen in the wild: down, slow, an HTML error page with
 * status 200, a 403.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The source names, as RATE_SOURCES takes them. */
export type SourceName = 'coinbase' | 'kraken' | 'bitstamp' | 'coingecko';

/** How a stand-in misbehaves: `down` refuses connections, `slow` never answers, `html` answers 200 with an error page, `forbidden` 403. */
export type Fault = 'none' | 'down' | 'slow' | 'html' | 'forbidden';

/** One stand-in source. */
export interface SourceServer {
  name: SourceName;
  url: string;
  /** Prices by `SHORT/CURRENCY`, as the text the source sends (`"64000.5"`, `"0"`, `"-3"`). */
  prices: Map<string, string>;
  fault: Fault;
  /** Every request path (with query) received, in order. */
  requests: string[];
  close(): Promise<void>;
}

// Kraken's result keys: its older assets get X and Z prefixes (XXBTZUSD), USDT a Z before the fiat (USDTZUSD), newer ones none (TRXUSD).
const KRAKEN_NAME: Record<string, string> = { XBT: 'BTC', XDG: 'DOGE' };
const KRAKEN_LEGACY = new Set(['XBT', 'ETH', 'LTC', 'XRP', 'XDG', 'XMR']);
function krakenKey(asset: string, fiat: string): string {
  if (KRAKEN_LEGACY.has(asset)) return `X${asset}Z${fiat}`;
  return asset === 'USDT' ? `USDTZ${fiat}` : `${asset}${fiat}`;
}
const COINGECKO_TICKER: Record<string, string> = { bitcoin: 'BTC', litecoin: 'LTC', ethereum: 'ETH', tether: 'USDT', 'usd-coin': 'USDC', tron: 'TRX', ripple: 'XRP' };

type Answer = { status: number; type?: string; body: string };
const json = (body: string, status = 200): Answer => ({ status, type: 'application/json', body });
const quoted = (text: string) => JSON.stringify(text);

function answer(name: SourceName, url: URL, prices: Map<string, string>): Answer {
  const pricesOf = (short: string) => [...prices].filter(([pair]) => pair.startsWith(`${short}/`)).map(([pair, price]) => [pair.slice(short.length + 1), price] as const);
  switch (name) {
    case 'coinbase': {
      const short = url.searchParams.get('currency') ?? '';
      const rates = pricesOf(short);
      if (url.pathname !== '/v2/exchange-rates') return json('{"errors":[{"id":"not_found","message":"Not found"}]}', 404);
      if (rates.length === 0) return json('{"errors":[{"id":"invalid_request","message":"Invalid currency"}]}', 400);
      return json(`{"data":{"currency":${quoted(short)},"rates":{${rates.map(([fiat, price]) => `${quoted(fiat)}:${quoted(price)}`).join(',')}}}}`);
    }
    case 'kraken': {
      const pair = url.searchParams.get('pair') ?? '';
      const match = /^([A-Z]+?)(USD|EUR|JPY|GBP|CAD|CHF|AUD)$/.exec(pair);
      const asset = match?.[1] ?? '';
      const price = match ? prices.get(`${KRAKEN_NAME[asset] ?? asset}/${match[2]}`) : undefined;
      if (url.pathname !== '/0/public/Ticker' || !match || price === undefined) return json('{"error":["EQuery:Unknown asset pair"]}');
      const ticker = `{"a":[${quoted(price)},"1","1.000"],"b":[${quoted(price)},"2","2.000"],"c":[${quoted(price)},"0.00150000"],"v":["12.5","800.1"],"p":[${quoted(price)},${quoted(price)}],"t":[120,9000],"l":["1.0","1.0"],"h":[${quoted(price)},${quoted(price)}],"o":${quoted(price)}}`;
      return json(`{"error":[],"result":{${quoted(krakenKey(asset, match[2]!))}:${ticker}}}`);
    }
    case 'bitstamp': {
      if (url.pathname === '/api/v2/trading-pairs-info/') {
        const markets = [...prices.keys()].map((pair) => {
          const [short, fiat] = pair.split('/') as [string, string];
          return `{"name":${quoted(pair)},"url_symbol":${quoted((short + fiat).toLowerCase())},"base_decimals":8,"counter_decimals":2,"minimum_order":"10 ${fiat}","trading":"Enabled","description":${quoted(`${short} / ${fiat}`)}}`;
        });
        return json(`[${markets.join(',')}]`);
      }
      const match = /^\/api\/v2\/ticker\/([a-z]+?)(usd|eur|jpy|gbp)\/$/.exec(url.pathname);
      const price = match ? prices.get(`${match[1]!.toUpperCase()}/${match[2]!.toUpperCase()}`) : undefined;
      if (price === undefined) return { status: 404, type: 'text/html', body: '<!DOCTYPE html><html><body><h1>Not Found</h1></body></html>' };
      return json(
        `{"timestamp":"1763719200","open":${quoted(price)},"high":${quoted(price)},"low":${quoted(price)},"last":${quoted(price)},"volume":"152.3","vwap":${quoted(price)},"bid":${quoted(price)},"ask":${quoted(price)},"side":"0","open_24":${quoted(price)},"percent_change_24":"0.10"}`,
      );
    }
    case 'coingecko': {
      const ids = (url.searchParams.get('ids') ?? '').split(',');
      const currencies = (url.searchParams.get('vs_currencies') ?? '').split(',');
      if (url.pathname !== '/api/v3/simple/price') return json('{"error":"Not found"}', 404);
      // Prices are JSON numbers here, written from their text as CoinGecko's are.
      const coins = ids.flatMap((id) => {
        const short = COINGECKO_TICKER[id];
        const known = currencies.flatMap((fiat) => {
          const price = short ? prices.get(`${short}/${fiat.toUpperCase()}`) : undefined;
          return price === undefined ? [] : [`${quoted(fiat)}:${price}`];
        });
        return known.length > 0 ? [`${quoted(id)}:{${known.join(',')}}`] : [];
      });
      return json(`{${coins.join(',')}}`);
    }
  }
}

/** Starts a stand-in for `name` on a loopback port. */
export async function startSourceServer(name: SourceName, prices: Record<string, string> = {}): Promise<SourceServer> {
  const held = new Set<http.ServerResponse>();
  const source: SourceServer = {
    name,
    url: '',
    prices: new Map(Object.entries(prices)),
    fault: 'none',
    requests: [],
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    source.requests.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://source');
    switch (source.fault) {
      case 'down':
        req.socket.destroy();
        return;
      case 'slow':
        held.add(res);
        return;
      case 'html':
        res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html><head><title>Service Unavailable</title></head><body>We are down for maintenance</body></html>');
        return;
      case 'forbidden':
        res.writeHead(403, { 'Content-Type': 'text/html' }).end('<html><body>403 Forbidden</body></html>');
        return;
      case 'none': {
        const { status, type, body } = answer(name, url, source.prices);
        res.writeHead(status, type ? { 'Content-Type': type } : {}).end(body);
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  source.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return source;
}

/** The environment pointing each given source's RATE_SOURCE_<NAME>_URL at its stand-in, and RATE_SOURCES at them all. */
export function rateEnv(sources: readonly SourceServer[], extra: Record<string, string> = {}): Record<string, string> {
  return {
    RATE_SOURCES: sources.map((s) => s.name).join(','),
    ...Object.fromEntries(sources.map((s) => [`RATE_SOURCE_${s.name.toUpperCase()}_URL`, s.url])),
    ...extra,
  };
}
