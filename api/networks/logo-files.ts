/**
 * @module The asset logos shipped with the service (api/networks/logos), read once with a brotli
 * and a gzip copy each, and named by their content hash (`btc.svg` → `btc.<hash>.svg`), so the URL
 * the registry hands out changes whenever the picture does and can be cached for a year.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** Where the logos live, and the URL prefix the registry's `logo` paths use for them. */
const LOGOS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'logos');
const PREFIX = '/logos/';

/** One encoding of a logo, with its own ETag. */
interface Encoded {
  bytes: Buffer;
  etag: string;
}

/** One logo under its two names. */
export interface LogoFile {
  /** The file, with its compressed copies (the shape the static-file sender takes). */
  file: { type: string; identity: Encoded; br: Encoded; gzip: Encoded };
  /** Whether the name asked for carries the content hash (cache it for a year). */
  hashed: boolean;
}

/** The shipped logos. */
export interface LogoFiles {
  /** The content-hashed path of a shipped logo (`/logos/btc.svg` → `/logos/btc.<hash>.svg`); any other path as it is. */
  hashedPath(logo: string): string;
  /** A logo by file name, plain (`btc.svg`) or hashed; undefined for anything else. */
  find(name: string): LogoFile | undefined;
}

/** Reads the logos of `dir`; each name gets its first 10 characters of SHA-256, base64url. */
export function loadLogoFiles(dir: string = LOGOS_DIR): LogoFiles {
  const hashedNames = new Map<string, string>();
  const byName = new Map<string, LogoFile>();
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.svg'))) {
    const bytes = fs.readFileSync(path.join(dir, name));
    const digest = createHash('sha256').update(bytes).digest('base64url');
    const tag = (suffix: string) => `"${digest.slice(0, 22)}${suffix}"`;
    const brotli = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
    const file = {
      type: 'image/svg+xml',
      identity: { bytes, etag: tag('') },
      br: { bytes: brotli, etag: tag('-br') },
      gzip: { bytes: gzipSync(bytes, { level: 9 }), etag: tag('-gz') },
    };
    const hashedName = name.replace(/\.svg$/, `.${digest.slice(0, 10)}.svg`);
    hashedNames.set(name, hashedName);
    byName.set(name, { file, hashed: false });
    byName.set(hashedName, { file, hashed: true });
  }
  return {
    hashedPath(logo) {
      const hashedName = logo.startsWith(PREFIX) ? hashedNames.get(logo.slice(PREFIX.length)) : undefined;
      return hashedName ? PREFIX + hashedName : logo;
    },
    find: (name) => byName.get(name),
  };
}

let shipped: LogoFiles | undefined;

/** The logos shipped with this build, read on first use (they do not change while it runs). */
export function shippedLogos(): LogoFiles {
  shipped ??= loadLogoFiles();
  return shipped;
}
