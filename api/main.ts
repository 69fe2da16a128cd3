/** Starts the service: configuration, database, services, HTTP server and background jobs. */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import v8 from 'node:v8';
import { applyServerTimeouts, createApp, DIST_DIR } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase, sqliteFile } from './db/open-database.ts';
import { answerClientErrors } from './http/client-errors.ts';
import { startJobs } from './jobs/jobs.ts';
import { ensureDemoMerchant } from './merchants/demo-merchant.ts';
import { loadServerKey } from './merchants/server-key.ts';
import { noWalletMessage } from './networks/hd-wallet.ts';
import { createServices } from './services.ts';
import { systemClock } from './shared/clock.ts';
import { createLogger } from './shared/logger.ts';
import { extraMounts } from './mounts.ts';

/**
 * How far V8 lets the old generation grow past what survived its last full collection before it
 * collects again, in percent. On a machine with memory to spare V8 allows up to 300 %, and under
 * load much of what a request allocates is promoted (it outlives two young collections) and dies
 * there: with about 27 MB live, the service swelled by 90 MB of garbage between full collections
 * (a peak of 232 MB in bench/memory.ts). At 50 % the heap swings between about 27 and 45 MB, with a
 * full collection (incremental and mostly concurrent) about once a second at full load, and CPU per
 * request unchanged within the noise of bench/profile.ts. V8 reads the value at each collection, so
 * setting it at start is enough; no command-line flag is needed.
 */
const HEAP_GROWING_PERCENT = 50;

async function start(): Promise<void> {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const config = loadConfig();
  // The port is taken before anything is created (a database, keys shown once, a wallet), so a start
  // that cannot listen leaves nothing behind and says only why. Requests that arrive while the rest
  // starts wait for it (the server's own deadlines still bound them).
  const { server, serveNow } = await takePort(config.port, config.host);
  // Everything this process creates (the database and its WAL, keys, the mnemonic) is the owner's
  // alone: customers' names and e-mails must not be readable by other local users.
  process.umask(0o077);
  // A new SQLite installation in production that cannot start (no wallet to receive with) stops
  // before it writes a database or a server key, so the next try starts from the same clean slate.
  if (config.production && !config.databaseUrl && !fs.existsSync(sqliteFile(config.dataDir)) && !fs.existsSync(config.walletMnemonicFile)) {
    throw new Error(noWalletMessage(config.walletMnemonicFile));
  }
  try {
    fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new Error(`DATA_DIR ${config.dataDir} cannot be used as the data directory: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    fs.chmodSync(config.dataDir, 0o700); // one made by an older version, or by hand
  } catch {
    // not ours to change (a mounted volume): leave it as the operator set it
  }
  const logger = createLogger(config.logLevel);
  let db;
  try {
    db = await openDatabase(config, logger);
  } catch (err) {
    throw new Error(`cannot open the database${config.databaseUrl ? ' at DATABASE_URL' : ''}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const serverKey = loadServerKey(config);
  const services = await createServices({ db, config, clock: systemClock, logger, serverKey });

  const demo = config.production ? undefined : await ensureDemoMerchant(services.merchants, config.dataDir, config.publicUrl, serverKey);
  if (demo) {
    process.stdout.write(
      `\nDemo merchant "${demo.merchant.name}" created (keys shown once; also in ${path.join(config.dataDir, 'demo-merchant.json')}):\n` +
        `  API key:    ${demo.apiKey}\n  Secret key: ${demo.secretKey}\n\n`,
    );
  }
  if (!fs.existsSync(path.join(DIST_DIR, 'widget', 'crypto-checkout.js'))) {
    logger.warn('dist/widget/crypto-checkout.js is missing: run `npm run build` (npm start does) to serve the widget');
  }

  const app = createApp(services, { mounts: extraMounts(services) });
  serveNow(app);
  logger.info({ url: config.publicUrl, host: config.host ?? 'every interface', storage: config.databaseUrl ? 'postgres' : 'sqlite', dataDir: config.dataDir, simulator: config.simulator }, `listening on port ${config.port}`);
  // Behind a proxy, or as one of several instances, the public address is not this process's port: both are said.
  const publicPort = new URL(config.publicUrl).port || (config.publicUrl.startsWith('https:') ? '443' : '80');
  const ownPort = publicPort === String(config.port) ? '' : ` (this instance listens on port ${config.port})`;
  process.stdout.write(`Crypto checkout is running at ${config.publicUrl}${ownPort}${config.production ? '' : ` (demo store: ${config.publicUrl}/demo)`}\n`);
  const stopJobs = startJobs(services);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const jobsStopped = stopJobs();
    server.close(() => {
      void jobsStopped
        .then(() => services.close())
        .then(() => db.close())
        .finally(() => process.exit(0));
    });
    // Live payer streams never end on their own.
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 2_000).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** How long a request that arrives while the service starts waits for it, and how many wait at most. */
const STARTING_WAIT_MS = 10_000;
const STARTING_QUEUE = 1_000;

/** Answers a request the starting service cannot take: 503 service-starting with Retry-After. */
function answerStarting(res: http.ServerResponse): void {
  if (res.headersSent || res.destroyed) return;
  const body = JSON.stringify({ error: { code: 'service-starting', message: 'The service is starting. Try again in a few seconds.' } });
  res
    .writeHead(503, { 'X-Request-Id': randomUUID(), 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': '5', 'Content-Length': Buffer.byteLength(body) })
    .end(body);
}

/**
 * Listens on `port` (on `host`, else every interface) at once. Requests that arrive before
 * `serveNow` hands over the app wait for it, up to STARTING_WAIT_MS (a start can wait on another
 * instance's migrations) and STARTING_QUEUE of them; past either they get 503 service-starting.
 */
async function takePort(port: number, host: string | undefined): Promise<{ server: http.Server; serveNow: (app: http.RequestListener) => void }> {
  let waiting: Map<http.ServerResponse, { req: http.IncomingMessage; timer: NodeJS.Timeout }> | undefined = new Map();
  let handler: http.RequestListener = (req, res) => {
    if (!waiting || waiting.size >= STARTING_QUEUE) return answerStarting(res);
    const leave = () => {
      clearTimeout(waiting?.get(res)?.timer);
      waiting?.delete(res);
    };
    waiting.set(res, {
      req,
      timer: setTimeout(() => {
        leave();
        answerStarting(res);
      }, STARTING_WAIT_MS),
    });
    res.once('close', leave);
  };
  const server = answerClientErrors(http.createServer(applyServerTimeouts({}), (req, res) => handler(req, res)));
  // Express 5's app.listen calls its callback on an error too; listen here and announce only success.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((err: NodeJS.ErrnoException) => {
    const where = host === undefined ? `port ${port}` : `${host} port ${port}`;
    const reason =
      err.code === 'EADDRINUSE'
        ? `port ${port} is already in use (set PORT to a free one)`
        : err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND'
          ? `HOST ${host} is not an address of this machine`
          : err.message;
    throw new Error(`cannot listen on ${where}: ${reason}`);
  });
  const serveNow = (app: http.RequestListener) => {
    handler = app;
    const held = [...(waiting ?? new Map()).entries()];
    waiting = undefined;
    for (const [res, { req, timer }] of held) {
      clearTimeout(timer);
      if (!res.headersSent && !res.destroyed) app(req, res);
    }
  };
  return { server, serveNow };
}

start().catch((err: unknown) => {
  const message = err instanceof ConfigError ? err.message : err instanceof Error ? err.message : String(err);
  process.stderr.write(`crypto-checkout: ${message}\n`);
  process.exit(1);
});
