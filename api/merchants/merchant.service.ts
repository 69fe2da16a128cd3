/** Merchant use cases: provisioning with fresh keys, and recognising a merchant by its keys. */
import { parseOrThrow } from '../http/validate.ts';
import type { Clock } from '../shared/clock.ts';
import { newId } from '../shared/ids.ts';
import { decryptSecretKey, encryptSecretKey, generateMerchantKeys, hashApiKey, type MerchantKeys } from './merchant-keys.ts';
import { CreateMerchantInput } from './merchant.schema.ts';
import type { Merchant, MerchantCredentials } from './merchant.store.ts';
import type { UnitOfWork } from '../unit-of-work.ts';

/** How long a recognised API key is trusted before it is looked up again (rotations elsewhere). */
export const RECHECK_MS = 30_000;

/** Creates the merchant use cases. */
export function createMerchantService(deps: { uow: UnitOfWork; serverKey: Buffer; clock: Clock }) {
  const { uow, serverKey, clock } = deps;
  const store = uow.stores.merchants;
  // What an API key hash resolves to, and what a sealed secret opens to, is remembered instead of
  // costing a database read (and an AES-GCM open) on every request. Only hits are kept: a merchant
  // another process (the CLI) creates is found on its first request, and unknown keys cannot grow
  // the maps. A rotation (by this process, another instance or the CLI) changes which keys are
  // valid, so a remembered key is looked up again once it is RECHECK_MS old: a rotated-out key
  // stops working everywhere within that time after its grace period ends.
  const credentialsByKeyHash = new Map<string, { credentials: MerchantCredentials; checkedAt: number }>();
  const merchantsById = new Map<string, Merchant>();
  const openedSecrets = new Map<string, string>();

  function remember(credentials: MerchantCredentials): MerchantCredentials {
    Object.freeze(credentials.merchant);
    merchantsById.set(credentials.merchant.id, credentials.merchant);
    return Object.freeze(credentials);
  }

  return {
    /**
     * Provisions a merchant; the returned keys are shown once and stored only hashed or sealed.
     * `identity` gives the id and keys instead of fresh random ones (the demo merchant's derived ones).
     */
    async create(input: unknown, identity?: { id: string } & MerchantKeys): Promise<{ merchant: Merchant } & MerchantKeys> {
      const fields = parseOrThrow(CreateMerchantInput, input);
      const keys = identity ? { apiKey: identity.apiKey, secretKey: identity.secretKey } : generateMerchantKeys();
      const merchant: Merchant = {
        id: identity?.id ?? newId(),
        name: fields.name,
        siteUrl: fields.siteUrl ?? null,
        logoUrl: fields.logoUrl ?? null,
        email: fields.email ?? null,
      };
      await store.insert({
        ...merchant,
        apiKeyHash: hashApiKey(keys.apiKey),
        secretKeyEnc: encryptSecretKey(keys.secretKey, merchant.id, serverKey),
        createdAt: clock(),
      });
      return { merchant, ...keys };
    },

    /** The merchant an API key belongs to, if any. */
    async authenticate(apiKey: string): Promise<MerchantCredentials | undefined> {
      const keyHash = hashApiKey(apiKey);
      const now = clock();
      const known = credentialsByKeyHash.get(keyHash);
      if (known && now - known.checkedAt < RECHECK_MS && (known.credentials.validUntil === undefined || now < known.credentials.validUntil)) return known.credentials;
      const found = (await store.findByApiKeyHash(keyHash)) ?? (await store.findPreviousKey(keyHash, now));
      if (found) credentialsByKeyHash.set(keyHash, { credentials: remember(found), checkedAt: now });
      else credentialsByKeyHash.delete(keyHash);
      return found;
    },

    /**
     * Gives a merchant a new key pair, shown once; the old pair keeps working for `graceSeconds`
     * (every instance stops accepting it within RECHECK_MS after that).
     */
    async rotateKeys(merchantId: string, graceSeconds: number): Promise<(MerchantKeys & { previousKeysValidUntil: number }) | undefined> {
      const keys = generateMerchantKeys();
      const now = clock();
      const previousKeysValidUntil = now + graceSeconds * 1000;
      const rotated = await uow.transaction((stores) =>
        stores.merchants.rotateKeys(merchantId, hashApiKey(keys.apiKey), encryptSecretKey(keys.secretKey, merchantId, serverKey), previousKeysValidUntil, now),
      );
      if (!rotated) return undefined;
      credentialsByKeyHash.clear();
      return { ...keys, previousKeysValidUntil };
    },

    /** Every merchant, for operators (no keys). */
    list: () => store.list(clock()),

    /** The merchant's secret key in clear, to check a signature. */
    secretKeyOf(credentials: MerchantCredentials): string {
      // Keyed by merchant and ciphertext together: the merchant id is the ciphertext's associated
      // data, so a sealed key copied onto another merchant's row must still fail to open.
      const key = `${credentials.merchant.id}\u0000${credentials.secretKeyEnc}`;
      const opened = openedSecrets.get(key);
      if (opened !== undefined) return opened;
      const secretKey = decryptSecretKey(credentials.secretKeyEnc, credentials.merchant.id, serverKey);
      openedSecrets.set(key, secretKey);
      return secretKey;
    },

    /** Throws unless the server key opens the stored secret keys (a wrong SERVER_KEY would lock everyone out). */
    async checkServerKey(): Promise<void> {
      const any = await store.findAny();
      if (!any) return;
      try {
        decryptSecretKey(any.secretKeyEnc, any.merchant.id, serverKey);
      } catch {
        throw new Error('the server key does not decrypt the stored merchant secret keys; start with the SERVER_KEY (or DATA_DIR/server.key) this database was created with');
      }
    },

    /** A merchant by id. */
    async findById(id: string): Promise<Merchant | undefined> {
      const known = merchantsById.get(id);
      if (known) return known;
      const found = await store.findById(id);
      if (found) merchantsById.set(id, Object.freeze(found));
      return found;
    },
  };
}

/** The merchant use cases' interface. */
export type MerchantService = ReturnType<typeof createMerchantService>;
