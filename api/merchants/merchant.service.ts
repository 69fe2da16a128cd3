/** Merchant use cases: provisioning with fresh keys, and recognising a merchant by its keys. */
import { parseOrThrow } from '../http/validate.ts';
import type { Clock } from '../shared/clock.ts';
import { newId } from '../shared/ids.ts';
import { decryptSecretKey, encryptSecretKey, generateMerchantKeys, hashApiKey, type MerchantKeys } from './merchant-keys.ts';
import { CreateMerchantInput } from './merchant.schema.ts';
import type { Merchant, MerchantCredentials, MerchantStore } from './merchant.store.ts';

/** Creates the merchant use cases. */
export function createMerchantService(deps: { store: MerchantStore; serverKey: Buffer; clock: Clock }) {
  const { store, serverKey, clock } = deps;
  return {
    /** Provisions a merchant; the returned keys are shown once and stored only hashed or sealed. */
    create(input: unknown): { merchant: Merchant } & MerchantKeys {
      const fields = parseOrThrow(CreateMerchantInput, input);
      const keys = generateMerchantKeys();
      const merchant: Merchant = {
        id: newId(),
        name: fields.name,
        siteUrl: fields.siteUrl ?? null,
        logoUrl: fields.logoUrl ?? null,
        email: fields.email ?? null,
      };
      store.insert({
        ...merchant,
        apiKeyHash: hashApiKey(keys.apiKey),
        secretKeyEnc: encryptSecretKey(keys.secretKey, merchant.id, serverKey),
        createdAt: clock(),
      });
      return { merchant, ...keys };
    },

    /** The merchant an API key belongs to, if any. */
    authenticate(apiKey: string): MerchantCredentials | undefined {
      return store.findByApiKeyHash(hashApiKey(apiKey));
    },

    /** The merchant's secret key in clear, to check a signature. */
    secretKeyOf(credentials: MerchantCredentials): string {
      return decryptSecretKey(credentials.secretKeyEnc, credentials.merchant.id, serverKey);
    },

    /** Throws unless the server key opens the stored secret keys (a wrong SERVER_KEY would lock everyone out). */
    checkServerKey(): void {
      const any = store.findAny();
      if (!any) return;
      try {
        decryptSecretKey(any.secretKeyEnc, any.merchant.id, serverKey);
      } catch {
        throw new Error('the server key does not decrypt the stored merchant secret keys; start with the SERVER_KEY (or DATA_DIR/server.key) this database was created with');
      }
    },

    /** A merchant by id. */
    findById: (id: string) => store.findById(id),
  };
}

/** The merchant use cases' interface. */
export type MerchantService = ReturnType<typeof createMerchantService>;
