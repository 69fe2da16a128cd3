/**
 * @module Endpoint signing secrets: `whsec_` and 24 random bytes in base64 (the Standard Webhooks
 * form), shown once, stored sealed under the server key like merchants' secret keys (AES-256-GCM,
 * the endpoint id bound in, so a sealed secret copied onto another endpoint does not open).
 */
import { randomBytes } from 'node:crypto';
import { decryptSecretKey, encryptSecretKey } from '../merchants/merchant-keys.ts';
import type { WebhookEndpoint } from './webhook.store.ts';

/** Creates the secret keeper over the server key. */
export function createWebhookSecrets(serverKey: Buffer) {
  const opened = new Map<string, string>();
  return {
    /** A new secret. */
    generate(): string {
      return `whsec_${randomBytes(24).toString('base64')}`;
    },
    /** The stored form of an endpoint's secret. */
    seal(secret: string, endpointId: string): string {
      return encryptSecretKey(secret, endpointId, serverKey);
    },
    /** An endpoint's secret in clear, for signing. */
    open(endpoint: Pick<WebhookEndpoint, 'id' | 'secretSealed'>): string {
      const key = `${endpoint.id}|${endpoint.secretSealed}`;
      let secret = opened.get(key);
      if (secret === undefined) {
        secret = decryptSecretKey(endpoint.secretSealed, endpoint.id, serverKey);
        if (opened.size > 10_000) opened.clear();
        opened.set(key, secret);
      }
      return secret;
    },
  };
}

/** The secret keeper. */
export type WebhookSecrets = ReturnType<typeof createWebhookSecrets>;
