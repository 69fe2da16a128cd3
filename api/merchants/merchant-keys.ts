import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto';

/** A merchant's pair of keys, shown once at creation and never stored in clear. */
export interface MerchantKeys {
  apiKey: string;
  secretKey: string;
}

/** Makes a new random key pair; the prefixes tell a leaked key's kind at a glance. */
export function generateMerchantKeys(): MerchantKeys {
  return {
    apiKey: `ak_${randomBytes(24).toString('base64url')}`,
    secretKey: `sk_${randomBytes(32).toString('base64url')}`,
  };
}

/** The form an API key is stored and looked up in. */
export function hashApiKey(apiKey: string): string {
  return hash('sha256', apiKey, 'hex');
}

/**
 * Encrypts a secret key with AES-256-GCM under the server key. The merchant id is bound in as
 * associated data, so a ciphertext copied onto another merchant's row does not decrypt.
 */
export function encryptSecretKey(secretKey: string, merchantId: string, serverKey: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', serverKey, iv);
  cipher.setAAD(Buffer.from(merchantId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(secretKey, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ciphertext].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/** Decrypts what encryptSecretKey produced; throws if the server key or merchant id is wrong. */
export function decryptSecretKey(sealed: string, merchantId: string, serverKey: Buffer): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('unknown secret key format');
  const decipher = createDecipheriv('aes-256-gcm', serverKey, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(merchantId, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
