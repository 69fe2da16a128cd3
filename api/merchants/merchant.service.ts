/** Merchant use cases: provisioning with fresh keys, and recognising a merchant by its keys. */
import type { Clock } from '../shared/clock.ts';
import { newId } from '../shared/ids.ts';
import { decryptSecretKey, encryptSecretKey, generateMerchantKeys, hashApiKey, type MerchantKeys } from './merchant-keys.ts';
import type { KeyChanges } from './key-changes.ts';
import { CreateMerchantInput, UpdateMerchantInput } from './merchant.schema.ts';
import { type FieldError, invalidFields, NotFound } from '../shared/errors.ts';
import { fieldsOf, parseCollecting } from '../shared/validation.ts';
import type { Merchant, MerchantCredentials } from './merchant.store.ts';
import type { UnitOfWork } from '../unit-of-work.ts';

/**
 * How long a recognised API key is trusted at most before it is looked up again: a backstop for key
 * changes nobody announced (an operator's hand-written SQL); rotations are noticed at once.
 */
export const RECHECK_MS = 30_000;

/**
 * Refuses a logo the payer's page would never show: its Content-Security-Policy loads images over
 * https or from this service only (`ownOrigin`, PUBLIC_URL's), so a plain-http logo elsewhere would
 * be saved and silently blank.
 */
export function logoProblem(logoUrl: string | null | undefined, ownOrigin: string | undefined): FieldError | undefined {
  if (!logoUrl || ownOrigin === undefined || !URL.canParse(logoUrl)) return undefined;
  const url = new URL(logoUrl);
  if (url.protocol === 'https:' || url.origin === ownOrigin) return undefined;
  return { path: 'logoUrl', message: `must be an https:// URL (or on this service, ${ownOrigin}): the payer's page shows images only from those` };
}

/**
 * Reads a new merchant's fields: every bad field at once, a logo the payer's page would not show
 * among them. Needs no store, so a command line can judge its flags before opening one.
 */
export function readNewMerchant(body: unknown, publicUrl: string): CreateMerchantInput {
  const parsed = parseCollecting(CreateMerchantInput, body);
  const errors: FieldError[] = [...parsed.errors];
  const logoUrl = fieldsOf(body).logoUrl;
  const logo = typeof logoUrl === 'string' && !errors.some((e) => e.path === 'logoUrl') ? logoProblem(logoUrl, new URL(publicUrl).origin) : undefined;
  if (logo) errors.push(logo);
  if (errors.length > 0) throw invalidFields(errors);
  return parsed.data!;
}

/** Creates the merchant use cases. */
export function createMerchantService(deps: {
  uow: UnitOfWork;
  serverKey: Buffer;
  clock: Clock;
  keyChanges: KeyChanges;
  /** PUBLIC_URL: a logo on plain http is shown only from its origin (the payer page's img-src). */
  publicUrl?: string;
}) {
  const { uow, serverKey, clock, keyChanges } = deps;
  const ownOrigin = deps.publicUrl === undefined ? undefined : new URL(deps.publicUrl).origin;

  const logoError = (logoUrl: string | null | undefined) => logoProblem(logoUrl, ownOrigin);
  function checkLogo(logoUrl: string | null | undefined): void {
    const error = logoError(logoUrl);
    if (error) throw invalidFields([error]);
  }
  const store = uow.stores.merchants;
  // What an API key hash resolves to, and what a sealed secret opens to, is remembered instead of
  // costing a database read (and an AES-GCM open) on every request. Only hits are kept: a merchant
  // another process (the CLI) creates is found on its first request, and unknown keys cannot grow
  // the maps. A key from before a rotation carries its end (validUntil), checked on every use. A
  // rotation (by this process, another instance or the CLI) moves the key-change generation on
  // (within a second everywhere), and everything remembered is forgotten.
  const credentialsByKeyHash = new Map<string, { credentials: MerchantCredentials; checkedAt: number }>();
  let rememberedGeneration = 0;
  const merchantsById = new Map<string, Merchant>();
  const openedSecrets = new Map<string, string>();

  // A profile edit or a rotation anywhere moves the generation on; merchants remembered by id are read again.
  let merchantsGeneration = keyChanges.seen();
  // The merchant objects handed out since the generation last moved: what `isCurrent` answers from.
  let currentMerchants = new WeakSet<Merchant>();
  function forgetMerchants(): void {
    merchantsById.clear();
    currentMerchants = new WeakSet();
  }
  function forgetIfChanged(): void {
    if (keyChanges.seen() === merchantsGeneration) return;
    merchantsGeneration = keyChanges.seen();
    forgetMerchants();
  }

  function stillValid(known: { credentials: MerchantCredentials; checkedAt: number } | undefined, now: number): MerchantCredentials | undefined {
    if (known && now - known.checkedAt < RECHECK_MS && (known.credentials.validUntil === undefined || now < known.credentials.validUntil)) return known.credentials;
    return undefined;
  }

  function remember(credentials: MerchantCredentials): MerchantCredentials {
    forgetIfChanged();
    Object.freeze(credentials.merchant);
    merchantsById.set(credentials.merchant.id, credentials.merchant);
    currentMerchants.add(credentials.merchant);
    return Object.freeze(credentials);
  }

  return {
    /**
     * Provisions a merchant; the returned keys are shown once and stored only hashed or sealed.
     * `identity` gives the id and keys instead of fresh random ones (the demo merchant's derived ones).
     */
    async create(fields: CreateMerchantInput, identity?: { id: string } & MerchantKeys): Promise<{ merchant: Merchant } & MerchantKeys> {
      checkLogo(fields.logoUrl);
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

    /**
     * What `authenticate` would answer for an API key's hash when that needs no read and no wait (a
     * key recognised within RECHECK_MS, no key change since); undefined when `authenticate` must run.
     */
    recognised(keyHash: string): MerchantCredentials | undefined {
      const generation = keyChanges.current();
      return generation === rememberedGeneration ? stillValid(credentialsByKeyHash.get(keyHash), clock()) : undefined;
    },

    /** The merchant an API key belongs to, if any. */
    async authenticate(apiKey: string): Promise<MerchantCredentials | undefined> {
      const keyHash = hashApiKey(apiKey);
      const generation = await keyChanges.generation();
      if (generation !== rememberedGeneration) {
        credentialsByKeyHash.clear();
        rememberedGeneration = generation;
      }
      const now = clock();
      const known = stillValid(credentialsByKeyHash.get(keyHash), now);
      if (known) return known;
      const found = (await store.findByApiKeyHash(keyHash)) ?? (await store.findPreviousKey(keyHash, now));
      // A rotation noticed while the lookup ran may have made what it read stale: used once, not remembered.
      if (found && keyChanges.seen() === generation) credentialsByKeyHash.set(keyHash, { credentials: remember(found), checkedAt: now });
      else credentialsByKeyHash.delete(keyHash);
      return found;
    },

    /**
     * Gives a merchant a new key pair, shown once; the old pair keeps working for `graceSeconds`
     * (every instance notices the rotation within a second, and stops accepting the old pair on the
     * clock tick its grace ends).
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
      // The rotation is committed whatever happens to the announcement (the new keys must be shown);
      // an instance that misses it still looks its keys up again within RECHECK_MS.
      await keyChanges.announce(merchantId).catch(() => {});
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

    /**
     * Reads a settings edit of this merchant: every bad field at once, a logo the payer's page would
     * not show among them (only when it changes: one saved before the rule must not block the rest).
     */
    async readProfile(merchantId: string, body: unknown): Promise<UpdateMerchantInput> {
      const parsed = parseCollecting(UpdateMerchantInput, body);
      const errors: FieldError[] = [...parsed.errors];
      const logoUrl = fieldsOf(body).logoUrl;
      const refused = typeof logoUrl === 'string' && !errors.some((e) => e.path === 'logoUrl') ? logoError(logoUrl) : undefined;
      const logo = refused && logoUrl !== (await store.findById(merchantId))?.logoUrl ? refused : undefined;
      if (logo) errors.push(logo);
      if (errors.length > 0) throw invalidFields(errors);
      return parsed.data!;
    },

    /**
     * Replaces the shop's name, site, logo and e-mail. Every instance forgets what it remembered of
     * merchants within a second (the key-change announcement), so pages and records show the new profile.
     */
    async updateProfile(merchantId: string, input: UpdateMerchantInput): Promise<Merchant> {
      // Only a changed logo is judged: one saved before the rule must not block editing the rest.
      if (input.logoUrl !== (await store.findById(merchantId))?.logoUrl) checkLogo(input.logoUrl);
      const merchant: Merchant = { id: merchantId, name: input.name, siteUrl: input.siteUrl, logoUrl: input.logoUrl, email: input.email };
      if (!(await uow.transaction((stores) => stores.merchants.updateProfile(merchant)))) throw new NotFound('merchant-not-found', `No merchant with id "${merchantId}".`);
      forgetMerchants();
      credentialsByKeyHash.clear();
      await keyChanges.announce(merchantId).catch(() => {});
      return merchant;
    },

    /** A number that moves on whenever any merchant's profile or keys may have changed (for caches of what shows a merchant). */
    changes: (): number => keyChanges.seen(),

    /**
     * Whether a merchant object is one this service handed out since the last change it knows of:
     * a record rendered with it may be kept. One read before a profile edit (and used once, since
     * the edit came while it was read) is not, even when the request that holds it began after.
     */
    isCurrent(merchant: Merchant): boolean {
      forgetIfChanged();
      return currentMerchants.has(merchant);
    },

    /** A merchant by id. */
    async findById(id: string): Promise<Merchant | undefined> {
      forgetIfChanged();
      const known = merchantsById.get(id);
      if (known) return known;
      const seen = keyChanges.seen();
      const found = await store.findById(id);
      // Remembered only if nothing changed while it was read (else used once, like authenticate's).
      if (found && keyChanges.seen() === seen) {
        forgetIfChanged();
        merchantsById.set(id, Object.freeze(found));
        currentMerchants.add(found);
      }
      return found;
    },
  };
}

/** The merchant use cases' interface. */
export type MerchantService = ReturnType<typeof createMerchantService>;
