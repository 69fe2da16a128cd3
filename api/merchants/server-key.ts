import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';

/**
 * The 32-byte key that encrypts merchants' secret keys. It never enters the database: it comes
 * from SERVER_KEY, or from DATA_DIR/server.key (created once, mode 0600) when that is not set.
 */
export function loadServerKey(config: Pick<Config, 'serverKeyHex' | 'dataDir'>): Buffer {
  if (config.serverKeyHex) return Buffer.from(config.serverKeyHex, 'hex');
  const file = path.join(config.dataDir, 'server.key');
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    // 'wx' fails if another process created the file first; then both use the same key.
    fs.writeFileSync(file, randomBytes(32).toString('hex') + '\n', { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const hex = fs.readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${file} does not hold a 64-character hex key`);
  return Buffer.from(hex, 'hex');
}
