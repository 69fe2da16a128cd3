/**
 * @module Configuration: read from the environment once, validated, frozen. A bad value stops
 * start-up with a one-line message naming the variable.
 */
import path from 'node:path';

/** Which chain a Bitcoin Core-compatible node follows, as the operator configures it. */
export type ChainName = 'main' | 'test' | 'regtest';
/** The chain names configuration accepts. */
export const CHAIN_NAMES: readonly ChainName[] = ['main', 'test', 'regtest'];

/** The rate sources this build knows, by the names RATE_SOURCES uses. */
export const RATE_SOURCE_NAMES = ['coinbase', 'kraken', 'bitstamp', 'coingecko'] as const;
/** A known rate source. */
export type RateSourceName = (typeof RATE_SOURCE_NAMES)[number];

/** Prices in fiat: where rates come from and how they are used (the RATE_* variables). */
export interface RatesConfig {
  /** RATE_SOURCES, in the order given (default coinbase, kraken, bitstamp). */
  sources: readonly RateSourceName[];
  /** RATE_SOURCE_<NAME>_URL: a base URL replacing a source's real address (a proxy, a test). */
  urls: Readonly<Partial<Record<RateSourceName, string>>>;
  /** RATE_REFRESH_SECONDS (default 60): how often quotes in use are fetched again. */
  refreshSeconds: number;
  /** RATE_MAX_AGE_SECONDS (default 300): older quotes are not used. */
  maxAgeSeconds: number;
  /** RATE_SPREAD_PERCENT (default "0", 0 to 50): the converted amount is raised by this share, a decimal string. */
  spreadPercent: string;
  /** How long one round of asking the sources may take: 3 s, the contract's "slow" (not an environment variable). */
  timeoutMs: number;
}

/** Everything the service reads from its environment. */
export interface Config {
  readonly port: number;
  /** The address to listen on (HOST); undefined listens on every interface. */
  readonly host: string | undefined;
  readonly publicUrl: string;
  readonly dataDir: string;
  /** PostgreSQL connection URL; unset means SQLite in DATA_DIR. */
  readonly databaseUrl: string | undefined;
  readonly simulator: boolean;
  readonly simulatorBlockSeconds: number;
  readonly paymentTimeoutSeconds: number;
  /** Share of a payment's amount it may fall short by and still count as paid (PAYMENT_TOLERANCE_PERCENT, 0 to 10, a decimal string). */
  readonly paymentTolerancePercent: string;
  readonly logLevel: string;
  /** 32-byte key that encrypts merchants' secret keys; from SERVER_KEY, else a file in DATA_DIR. */
  readonly serverKeyHex: string | undefined;
  /** How many derived addresses each network keeps ready, so creates never derive keys inline. */
  readonly addressPoolSize: number;
  readonly production: boolean;
  /** Requests per minute per API key on merchant routes; 0 turns the limit off. */
  readonly rateLimitMerchant: number;
  /** Requests per minute per client address on the payer's public routes; 0 turns the limit off. */
  readonly rateLimitPublic: number;
  /** Open payer event streams this instance serves at most. */
  readonly sseMaxStreams: number;
  /** Open payer event streams one client address may hold. */
  readonly sseMaxStreamsPerClient: number;
  /** Express's `trust proxy` setting: whose X-Forwarded-For names the client (false: nobody's). */
  readonly trustProxy: boolean | number | string;
  /** Whether webhook endpoints may be plain http and private addresses (off in production by default). */
  readonly webhookAllowPrivate: boolean;
  /** How long a webhook endpoint has to answer, in milliseconds. */
  readonly webhookTimeoutMs: number;
  /** Bitcoin Core-compatible nodes by network (BITCOIN_RPC_URL, LITECOIN_RPC_URL), with the chain each is on. */
  readonly nodes: Readonly<Partial<Record<'bitcoin' | 'litecoin', NodeConfig>>>;
  /** The Ethereum JSON-RPC endpoint (ETHEREUM_RPC_URL) and the chain id it must report (ETHEREUM_CHAIN_ID, default 1). */
  readonly ethereum: EthereumConfig | undefined;
  /** Where mail goes out (SMTP_URL, smtp:// or smtps://, with user:password when the server wants them); undefined sends none. */
  readonly smtpUrl: string | undefined;
  /** The sender of that mail (SMTP_FROM, default checkout@ the PUBLIC_URL host). */
  readonly smtpFrom: string;
  /** Monero through monero-wallet-rpc and monerod (MONERO_WALLET_RPC_URL, MONERO_DAEMON_RPC_URL). */
  readonly monero: MoneroConfig | undefined;
  /** The file holding the installation's mnemonic (WALLET_MNEMONIC_FILE, default DATA_DIR/wallet-mnemonic.txt). */
  readonly walletMnemonicFile: string;
  /** Prices in fiat (RATE_* variables). */
  readonly rates: RatesConfig;
}

/** Ethereum through a node. */
export interface EthereumConfig {
  rpcUrl: string;
  chainId: number;
  /** Seconds between automatic sweeps (ETHEREUM_SWEEP_SECONDS, default 300; 0: only on demand). */
  sweepSeconds: number;
  /** Balances swept automatically from this much (ETHEREUM_SWEEP_MIN_ETH, default 0.05; ETHEREUM_SWEEP_MIN_TOKEN, default 50, in each token's units). */
  sweepMinEth: string;
  sweepMinToken: string;
  /** After how long an unmined payout is replaced at a higher fee (ETHEREUM_STUCK_SECONDS, default 600). */
  stuckSeconds: number;
}

/** Monero through a wallet RPC with the installation's wallet open, and its daemon. */
export interface MoneroConfig {
  /** `http://user:password@host:port` (digest auth), or no credentials with `--disable-rpc-login`. */
  walletRpcUrl: string;
  daemonRpcUrl: string;
  /** Between polls of the wallet (MONERO_POLL_SECONDS, default 2). */
  pollMs: number;
}

/** A Bitcoin Core-compatible node a network runs on. */
export interface NodeConfig {
  rpcUrl: string;
  chain: ChainName;
  /** Sat/vB for payouts when the node has no fee estimate (<NETWORK>_FALLBACK_FEE_RATE). */
  fallbackFeeRate: bigint;
}

/** A configuration value that cannot be used; main prints its message and exits. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

// An IPv4 or IPv6 literal, or a host name (letters, digits, dots and hyphens).
const HOST_PATTERN = /^(?:[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)$/;

function hostOf(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.HOST?.trim();
  if (!raw) return undefined;
  if (raw.length > 253 || !HOST_PATTERN.test(raw)) throw new ConfigError(`HOST must be an address or host name to listen on (127.0.0.1, ::1, localhost, 0.0.0.0), got "${raw}"`);
  return raw;
}

function percent(env: NodeJS.ProcessEnv, name: string, max: number): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return '0';
  if (!/^(0|[1-9][0-9]*)(\.[0-9]{1,2})?$/.test(raw) || Number(raw) > max) {
    throw new ConfigError(`${name} must be a percentage from 0 to ${max} with at most two decimals (0.5), got "${raw}"`);
  }
  return raw;
}

function onOff(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['on', 'true', '1', 'yes'].includes(raw)) return true;
  if (['off', 'false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be "on" or "off", got "${env[name]}"`);
}

function publicUrl(env: NodeJS.ProcessEnv, port: number): string {
  const raw = env.PUBLIC_URL;
  if (raw === undefined || raw === '') return `http://localhost:${port}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`PUBLIC_URL must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`PUBLIC_URL must start with http:// or https://, got "${raw}"`);
  }
  if (url.search || url.hash) throw new ConfigError(`PUBLIC_URL must not have a query or fragment, got "${raw}"`);
  // The pages, scripts and links the service serves are at the root of its address (/pay, /widget/…,
  // /refund): under a path they would miss it. A proxy must give the service a host of its own.
  if (!/^\/*$/.test(url.pathname)) {
    throw new ConfigError(`PUBLIC_URL must be an origin with no path (the service answers at the root of its own host, such as https://pay.example.com), got "${raw}"`);
  }
  return url.toString().replace(/\/+$/, '');
}

// Express's `trust proxy` values: a hop count, or addresses, subnets and the names loopback,
// linklocal and uniquelocal, comma-separated. Anything else is a typo that would silently trust
// nobody (or everybody), so it stops start-up.
const TRUST_PROXY_PART = /^(loopback|linklocal|uniquelocal|[0-9a-fA-F.:]+(\/[0-9]{1,3})?)$/;
function trustProxyOf(env: NodeJS.ProcessEnv): boolean | number | string {
  const raw = env.TRUST_PROXY?.trim();
  if (raw === undefined || raw === '' || raw.toLowerCase() === 'off' || raw.toLowerCase() === 'false') return false;
  if (/^[0-9]+$/.test(raw)) return Number(raw);
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length === 0 || !parts.every((part) => TRUST_PROXY_PART.test(part))) {
    throw new ConfigError(`TRUST_PROXY must be a hop count (1) or addresses and subnets (10.0.0.0/8, loopback), comma-separated; got "${raw}"`);
  }
  return parts.join(',');
}

function databaseUrlOf(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('DATABASE_URL must be a URL like postgres://user:password@host:5432/database');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(`DATABASE_URL must start with postgres:// or postgresql://, got "${url.protocol}//…"`);
  }
  return raw;
}

function nodesOf(env: NodeJS.ProcessEnv): Config['nodes'] {
  const nodes: Partial<Record<'bitcoin' | 'litecoin', NodeConfig>> = {};
  for (const network of ['bitcoin', 'litecoin'] as const) {
    const prefix = network.toUpperCase();
    const raw = env[`${prefix}_RPC_URL`];
    const chainRaw = env[`${prefix}_CHAIN`] || 'main';
    if (!CHAIN_NAMES.includes(chainRaw as ChainName)) throw new ConfigError(`${prefix}_CHAIN must be one of ${CHAIN_NAMES.join(', ')}, got "${chainRaw}"`);
    if (raw === undefined || raw === '') continue;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ConfigError(`${prefix}_RPC_URL must be a URL like http://user:password@127.0.0.1:8332`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${prefix}_RPC_URL must start with http:// or https://`);
    nodes[network] = { rpcUrl: raw, chain: chainRaw as ChainName, fallbackFeeRate: BigInt(integer(env, `${prefix}_FALLBACK_FEE_RATE`, 10, 1, 10_000)) };
  }
  return nodes;
}

function ethereumOf(env: NodeJS.ProcessEnv): Config['ethereum'] {
  const chainId = integer(env, 'ETHEREUM_CHAIN_ID', 1, 1, 2 ** 48);
  const raw = env.ETHEREUM_RPC_URL;
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('ETHEREUM_RPC_URL must be a URL like http://127.0.0.1:8545');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError('ETHEREUM_RPC_URL must start with http:// or https://');
  const decimal = (name: string, fallback: string) => {
    const value = env[name] || fallback;
    if (!/^(0|[1-9][0-9]*)(\.[0-9]{1,18})?$/.test(value)) throw new ConfigError(`${name} must be a decimal amount like ${fallback}, got "${value}"`);
    return value;
  };
  return {
    rpcUrl: raw,
    chainId,
    sweepSeconds: integer(env, 'ETHEREUM_SWEEP_SECONDS', 300, 0, 86_400),
    sweepMinEth: decimal('ETHEREUM_SWEEP_MIN_ETH', '0.05'),
    sweepMinToken: decimal('ETHEREUM_SWEEP_MIN_TOKEN', '50'),
    stuckSeconds: integer(env, 'ETHEREUM_STUCK_SECONDS', 600, 1, 86_400),
  };
}

function ratesOf(env: NodeJS.ProcessEnv): RatesConfig {
  const raw = env.RATE_SOURCES?.trim() || 'coinbase,kraken,bitstamp';
  const names = raw.split(',').map((name) => name.trim().toLowerCase());
  const known = (name: string): name is RateSourceName => (RATE_SOURCE_NAMES as readonly string[]).includes(name);
  if (!names.every(known) || new Set(names).size !== names.length) {
    throw new ConfigError(`RATE_SOURCES must be a comma list of distinct sources among ${RATE_SOURCE_NAMES.join(', ')}, got "${raw}"`);
  }
  const urls: Partial<Record<RateSourceName, string>> = {};
  for (const name of RATE_SOURCE_NAMES) {
    const variable = `RATE_SOURCE_${name.toUpperCase()}_URL`;
    const value = env[variable]?.trim();
    if (!value) continue;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
      throw new ConfigError(`${variable} must be an http(s) base URL without query, like http://127.0.0.1:8089, got "${value}"`);
    }
    urls[name] = value.replace(/\/+$/, '');
  }
  const spread = env.RATE_SPREAD_PERCENT?.trim() || '0';
  if (!/^[0-9]{1,2}(\.[0-9]{1,4})?$/.test(spread) || Number(spread) > 50) {
    throw new ConfigError(`RATE_SPREAD_PERCENT must be a decimal from 0 to 50 (at most 4 decimals, like 1.5), got "${spread}"`);
  }
  return {
    sources: names as RateSourceName[],
    urls,
    refreshSeconds: integer(env, 'RATE_REFRESH_SECONDS', 60, 1, 86_400),
    maxAgeSeconds: integer(env, 'RATE_MAX_AGE_SECONDS', 300, 1, 86_400),
    spreadPercent: spread,
    timeoutMs: 3_000,
  };
}

function smtpUrlOf(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.SMTP_URL;
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('SMTP_URL must be a URL like smtp://user:password@mail.example:587 or smtps://user:password@mail.example:465');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    // The rest is not repeated: it may hold the password. Without "//" the URL parser reads the host
    // as the scheme (localhost:25), which would name a scheme nobody typed.
    throw new ConfigError(
      raw.includes('//')
        ? `SMTP_URL must start with smtp:// or smtps://, got "${url.protocol}//…"`
        : 'SMTP_URL must start with smtp:// or smtps://, got a value without "//" (write smtp://host:port, or smtp://user:password@host:port)',
    );
  }
  return raw;
}

function smtpFromOf(env: NodeJS.ProcessEnv, publicUrl: string): string {
  const raw = env.SMTP_FROM?.trim();
  if (raw === undefined || raw === '') return `checkout@${new URL(publicUrl).hostname}`;
  // An address, or a name and an address: "Shop Payments <payments@shop.example>".
  if (!/^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(raw)) {
    throw new ConfigError(`SMTP_FROM must be an e-mail address (payments@shop.example) or a name and one (Shop <payments@shop.example>), got "${raw}"`);
  }
  return raw;
}

function moneroOf(env: NodeJS.ProcessEnv): Config['monero'] {
  const url = (name: string, example: string): string | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError(`${name} must be a URL like ${example}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(`${name} must start with http:// or https://`);
    return raw;
  };
  const walletRpcUrl = url('MONERO_WALLET_RPC_URL', 'http://user:password@127.0.0.1:18088');
  const daemonRpcUrl = url('MONERO_DAEMON_RPC_URL', 'http://127.0.0.1:18081');
  if (walletRpcUrl === undefined && daemonRpcUrl === undefined) return undefined;
  if (walletRpcUrl === undefined || daemonRpcUrl === undefined) {
    throw new ConfigError('MONERO_WALLET_RPC_URL and MONERO_DAEMON_RPC_URL go together: set both (the wallet RPC and the monerod it uses), or neither');
  }
  return { walletRpcUrl, daemonRpcUrl, pollMs: integer(env, 'MONERO_POLL_SECONDS', 2, 1, 3600) * 1000 };
}

/** Reads and validates the configuration from an environment. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const production = env.NODE_ENV === 'production';
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const serverKeyHex = env.SERVER_KEY || undefined;
  if (serverKeyHex !== undefined && !/^[0-9a-fA-F]{64}$/.test(serverKeyHex)) {
    throw new ConfigError('SERVER_KEY must be 64 hexadecimal characters (32 bytes)');
  }
  const databaseUrl = databaseUrlOf(env);
  if (databaseUrl !== undefined && serverKeyHex === undefined) {
    throw new ConfigError('SERVER_KEY is required with DATABASE_URL: every instance must seal and open merchant keys with the same key (64 hexadecimal characters)');
  }
  const simulator = onOff(env, 'SIMULATOR', !production);
  if (simulator && production) {
    throw new ConfigError('SIMULATOR cannot be on when NODE_ENV=production');
  }
  const publicUrlValue = publicUrl(env, port);
  return Object.freeze({
    port,
    host: hostOf(env),
    publicUrl: publicUrlValue,
    smtpUrl: smtpUrlOf(env),
    smtpFrom: smtpFromOf(env, publicUrlValue),
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl,
    simulator,
    simulatorBlockSeconds: integer(env, 'SIMULATOR_BLOCK_SECONDS', 10, 0, 86400),
    paymentTimeoutSeconds: integer(env, 'PAYMENT_TIMEOUT_SECONDS', 3600, 60, 30 * 86400),
    paymentTolerancePercent: percent(env, 'PAYMENT_TOLERANCE_PERCENT', 10),
    logLevel,
    serverKeyHex,
    addressPoolSize: integer(env, 'ADDRESS_POOL_SIZE', 10000, 0, 100000),
    production,
    rateLimitMerchant: integer(env, 'RATE_LIMIT_MERCHANT', 6000, 0, 10_000_000),
    rateLimitPublic: integer(env, 'RATE_LIMIT_PUBLIC', 600, 0, 10_000_000),
    sseMaxStreams: integer(env, 'SSE_MAX_STREAMS', 10000, 1, 1_000_000),
    sseMaxStreamsPerClient: integer(env, 'SSE_MAX_STREAMS_PER_CLIENT', 20, 1, 1_000_000),
    trustProxy: trustProxyOf(env),
    webhookAllowPrivate: onOff(env, 'WEBHOOK_ALLOW_PRIVATE', !production),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_SECONDS', 15, 1, 60) * 1000,
    nodes: nodesOf(env),
    ethereum: ethereumOf(env),
    monero: moneroOf(env),
    walletMnemonicFile: path.resolve(env.WALLET_MNEMONIC_FILE || path.join(env.DATA_DIR || './data', 'wallet-mnemonic.txt')),
    rates: ratesOf(env),
  });
}
