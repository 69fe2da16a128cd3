/**
 * Fuzz: thousands of generated hostile requests against every endpoint, each checked for the
 * answer it must get, the error contract, and an unchanged database whenever it was refused.
 * Replay a failure with FUZZ_SEED=<seed> (printed in every failure); FUZZ_COUNT sets the number.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { addressCodec } from '../../api/networks/address-codecs.ts';
import { parseAmount } from '../../api/shared/money.ts';
import {
  BAD_AMOUNTS,
  BAD_CONTENT_TYPES,
  BAD_ID_SEGMENTS,
  BAD_LIST_QUERIES,
  BAD_TEXT,
  brokenJson,
  createRng,
  databaseDigest,
  deepJson,
  fuzzSeed,
  HARMLESS_LIST_QUERIES,
  HOSTILE_TEXT,
  oversizedBody,
  type Rng,
  tableCounts,
  tooFineAmounts,
  validAmount,
  WRONG_TYPES,
} from '../helpers/fuzz-inputs.ts';
import { merchantApi, postJson, sign, startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';

const SEED = fuzzSeed(20261121);
const COUNT = Number(process.env.FUZZ_COUNT ?? 4000);
const KEBAB_CASE = /^[a-z]+(-[a-z]+)*$/;

/** One generated request and the answers it may get ("200", "400 validation-failed", ...). */
interface FuzzCase {
  label: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  expected: string[];
  /** The hosted page answers HTML, not the JSON error contract. */
  html?: boolean;
  /** A create whose 200 must read back unchanged, with the parsed body it sent. */
  created?: { kind: 'payment' | 'withdrawal'; sent: Record<string, unknown> };
}

interface AssetInfo {
  short: string;
  network: string;
  decimals: number;
  withdrawalFee: string;
  minWithdrawal: string;
}

let server: TestServer;
let shop: TestMerchant;
let rival: TestMerchant;
let assets: AssetInfo[];
const shopPayments: string[] = [];
const shopWithdrawals: string[] = [];
const shopAddresses = new Map<string, string[]>();
let rivalPayment: string;
let rivalWithdrawal: string;

/** Valid addresses of every network that belong to nobody in the service. */
const FOREIGN_ADDRESSES = new Map<string, string[]>();
for (const network of ['bitcoin', 'litecoin', 'ethereum', 'tron', 'ripple', 'monero']) {
  FOREIGN_ADDRESSES.set(
    network,
    [1, 2, 3].map((i) => addressCodec(network, 'main').fromPublicKey(secp256k1.getPublicKey(createHash('sha256').update(`fuzz-${network}-${i}`).digest(), true))),
  );
}

before(async () => {
  server = await startTestServer();
  shop = await server.createMerchant('Fuzz Shop');
  rival = await server.createMerchant('Rival Shop');
  assets = ((await (await fetch(`${server.api}/assets`)).json()) as { data: AssetInfo[] }).data;
  const shopApi = merchantApi(server, shop);
  // Balances to withdraw from, so valid withdrawals can succeed and later ones run dry.
  for (const asset of [
    { short: 'ETH', network: 'ethereum', amount: '40' },
    { short: 'XRP', network: 'ripple', amount: '3000' },
  ]) {
    const payment = (await shopApi.post('/payment', { amount: asset.amount, asset: { short: asset.short, network: asset.network } })).body;
    const paid = await postJson(`${server.api}/dev/transactions`, {
      address: payment.addressTo,
      destTag: payment.destTag,
      amount: asset.amount,
      asset: { short: asset.short, network: asset.network },
      confirmations: 3,
    });
    assert.equal(paid.status, 200);
    shopPayments.push(payment.id);
  }
  for (const asset of assets) {
    const payment = (await shopApi.post('/payment', { amount: '1', asset: { short: asset.short, network: asset.network } })).body;
    shopPayments.push(payment.id);
    shopAddresses.set(asset.network, [...(shopAddresses.get(asset.network) ?? []), payment.addressTo]);
  }
  const open = await shopApi.post('/withdrawal', { amount: '0.01', asset: { short: 'ETH', network: 'ethereum' }, addressTo: FOREIGN_ADDRESSES.get('ethereum')![0], invoice: 'fuzz-open' });
  const cancelled = await shopApi.post('/withdrawal', { amount: '0.01', asset: { short: 'ETH', network: 'ethereum' }, addressTo: FOREIGN_ADDRESSES.get('ethereum')![0], invoice: 'fuzz-cancelled' });
  await shopApi.post(`/withdrawal/${cancelled.body.id}/cancel`, {});
  shopWithdrawals.push(open.body.id, cancelled.body.id);

  const rivalApi = merchantApi(server, rival);
  const rivalPaid = (await rivalApi.post('/payment', { amount: '2', asset: { short: 'ETH', network: 'ethereum' } })).body;
  await postJson(`${server.api}/dev/transactions`, { address: rivalPaid.addressTo, amount: '2', asset: { short: 'ETH', network: 'ethereum' }, confirmations: 3 });
  rivalPayment = rivalPaid.id;
  rivalWithdrawal = (await rivalApi.post('/withdrawal', { amount: '1', asset: { short: 'ETH', network: 'ethereum' }, addressTo: FOREIGN_ADDRESSES.get('ethereum')![1], invoice: 'rival-1' })).body.id;
  assert.ok(rivalWithdrawal);
});
after(() => server.close());

// ---- body generation: every field either kept valid, made hostile-but-valid, made invalid or left out

/** A body under construction and whether something in it must be refused. */
interface Draft {
  body: Record<string, unknown>;
  invalid: boolean;
  notes: string[];
}

type Mode = 'valid' | 'invalid' | 'absent' | 'null';

function mode(rng: Rng, required: boolean): Mode {
  const roll = rng.next();
  if (required) return roll < 0.6 ? 'valid' : roll < 0.88 ? 'invalid' : roll < 0.96 ? 'absent' : 'null';
  return roll < 0.35 ? 'valid' : roll < 0.6 ? 'absent' : roll < 0.88 ? 'invalid' : 'null';
}

/** Applies one field: `valid` gives a value the API must accept, `invalid` one it must refuse. */
function field(draft: Draft, name: string, m: Mode, options: { required: boolean; nullable: boolean; valid: () => unknown; invalid: () => unknown }) {
  switch (m) {
    case 'valid':
      draft.body[name] = options.valid();
      break;
    case 'invalid':
      draft.body[name] = options.invalid();
      draft.invalid = true;
      draft.notes.push(`bad ${name}`);
      break;
    case 'absent':
      if (options.required) {
        draft.invalid = true;
        draft.notes.push(`no ${name}`);
      }
      break;
    case 'null':
      draft.body[name] = null;
      if (!options.nullable) {
        draft.invalid = true;
        draft.notes.push(`null ${name}`);
      }
      break;
  }
}

const EXTRA_FIELDS = ['Amount', 'amount ', 'id', 'status', 'merchantId', 'merchant', 'txnId', '__proto__', 'constructor', 'prototype', '', ' ', '😀', "'; --"];
const BAD_ASSETS: readonly unknown[] = [
  { short: 'BTC' },
  { network: 'bitcoin' },
  {},
  { short: 'BTC', network: 'Bitcoin' },
  { short: 'btc', network: 'bitcoin' },
  { short: 'BTC', network: 'ethereum' },
  { short: 'DOGE', network: 'dogecoin' },
  { short: "BTC' OR '1'='1", network: 'bitcoin' },
  { short: '<script>alert(1)</script>', network: '<b>x</b>' },
  { short: '', network: '' },
  { short: 'B'.repeat(21), network: 'bitcoin' },
  { short: 'BTC', network: 'b'.repeat(41) },
  { short: 1, network: 2 },
  { short: 'BTC', network: 'bitcoin', extra: true },
  { short: 'BTC', network: 'bitcoin', decimals: 'eight' },
  { short: ['BTC'], network: 'bitcoin' },
  'BTC',
  'BTC/bitcoin',
  ['BTC', 'bitcoin'],
  42,
  true,
];
const VALID_EMAILS = ['payer@example.com', "o'brien@example.co.uk", 'a+tag@sub.example.org', 'UPPER@EXAMPLE.COM'];
const BAD_EMAILS: readonly unknown[] = ['not-an-email', 'a@b', '<script>@x.example', "' OR 1=1--@x.example", 'a@@b.example', 'a@b..example', 'ü@example.com', `${'x'.repeat(250)}@example.com`, '', 1, true, {}];
const VALID_URLS = ['https://shop.example/return', 'http://localhost:8080/x?y=1', 'HTTPS://SHOP.EXAMPLE/', 'https://shop.example/?q="><script>alert(1)</script>', `https://shop.example/${encodeURIComponent("' OR 1=1 --")}`];
const BAD_URLS: readonly unknown[] = [
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  ' javascript:alert(1)',
  'java\nscript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
  'file:///etc/passwd',
  'ftp://files.example/x',
  '//shop.example/x',
  '/relative/path',
  'shop.example',
  'https://',
  'http://',
  '',
  `https://shop.example/${'a'.repeat(2000)}`,
  'https://shop.example/\ud800',
  'https://shop.example/ret\u0000urn',
  'https://shop.example/ret\u009burn',
  1,
  true,
  {},
  [],
];
const BAD_TIMEOUTS: readonly unknown[] = [59, 0, -1, 1.5, '3600', 2592001, 1e308, true, [], {}, 'forever'];
const BAD_CUSTOMER_IDS: readonly unknown[] = [-1, 1.5, '1', 2 ** 53, 1e308, true, [], {}, null];

function customer(rng: Rng, draft: Draft, m: Mode) {
  field(draft, 'customer', m, {
    required: false,
    nullable: true,
    valid: () => {
      const value: Record<string, unknown> = {};
      if (rng.chance(0.6)) value.id = rng.pick([0, 1, rng.int(2, 1_000_000), Number.MAX_SAFE_INTEGER]);
      if (rng.chance(0.7)) value.name = rng.pick(HOSTILE_TEXT);
      if (rng.chance(0.5)) value.email = rng.pick(VALID_EMAILS);
      return value;
    },
    invalid: () => {
      const value: Record<string, unknown> = { name: 'Payer' };
      switch (rng.int(0, 4)) {
        case 0:
          value.id = rng.pick(BAD_CUSTOMER_IDS);
          return value;
        case 1:
          value.name = rng.pick(BAD_TEXT);
          return value;
        case 2:
          value.email = rng.pick(BAD_EMAILS);
          return value;
        case 3:
          value[rng.pick(['phone', 'Name', 'Email', 'secret'])] = 'x';
          return value;
        default:
          return rng.pick(['Payer', 42, ['Payer'], true]);
      }
    },
  });
}

function assetField(rng: Rng, draft: Draft, m: Mode, pool: AssetInfo[]): AssetInfo | undefined {
  let chosen: AssetInfo | undefined;
  field(draft, 'asset', m, {
    required: true,
    nullable: false,
    valid: () => {
      chosen = rng.pick(pool);
      // A client may send back the full asset object it received; the extra fields are ignored.
      return rng.chance(0.2)
        ? { short: chosen.short, network: chosen.network, name: rng.pick(HOSTILE_TEXT), decimals: 99, logoUrl: rng.pick(HOSTILE_TEXT) }
        : { short: chosen.short, network: chosen.network };
    },
    invalid: () => rng.pick(BAD_ASSETS),
  });
  return chosen;
}

function amountField(rng: Rng, draft: Draft, m: Mode, asset: AssetInfo | undefined, validAmountOf: (asset: AssetInfo) => string) {
  const decimals = asset?.decimals ?? 8;
  field(draft, 'amount', m, {
    required: true,
    nullable: false,
    valid: () => (asset ? validAmountOf(asset) : validAmount(rng, 6)),
    invalid: () => (rng.chance(0.25) ? rng.pick(tooFineAmounts(decimals)) : rng.pick(BAD_AMOUNTS)),
  });
}

function extraField(rng: Rng, draft: Draft) {
  if (!rng.chance(0.08)) return;
  const name = rng.pick(EXTRA_FIELDS);
  // JSON.parse makes "__proto__" an own property, which is what a client would send.
  Object.defineProperty(draft.body, name, { value: rng.pick([1, 'x', null, {}, []]), enumerable: true, configurable: true, writable: true });
  draft.invalid = true;
  draft.notes.push(`extra ${JSON.stringify(name)}`);
}

function paymentDraft(rng: Rng): Draft {
  const draft: Draft = { body: {}, invalid: false, notes: [] };
  const asset = assetField(rng, draft, mode(rng, true), assets);
  // At least the network's dust limit (minWithdrawal less the fee: the limit, or one smallest unit).
  amountField(rng, draft, mode(rng, true), asset, (a) => {
    const amount = validAmount(rng, a.decimals);
    const least = parseAmount(a.minWithdrawal).minus(a.withdrawalFee);
    return parseAmount(amount).lt(least) ? least.toFixed() : amount;
  });
  customer(rng, draft, mode(rng, false));
  field(draft, 'invoice', mode(rng, false), { required: false, nullable: true, valid: () => rng.pick(HOSTILE_TEXT), invalid: () => rng.pick(BAD_TEXT) });
  field(draft, 'checkoutUrl', mode(rng, false), { required: false, nullable: true, valid: () => rng.pick(VALID_URLS), invalid: () => rng.pick(BAD_URLS) });
  field(draft, 'timeout', mode(rng, false), {
    required: false,
    nullable: true,
    valid: () => rng.pick([60, 3600, 2592000, rng.int(60, 2592000)]),
    invalid: () => rng.pick(BAD_TIMEOUTS),
  });
  extraField(rng, draft);
  return draft;
}

let invoiceCounter = 0;

function withdrawalDraft(rng: Rng): Draft {
  const draft: Draft = { body: {}, invalid: false, notes: [] };
  const asset = assetField(rng, draft, mode(rng, true), assets);
  amountField(rng, draft, mode(rng, true), asset, (a) => {
    const extra = `${rng.int(0, 3)}.${String(rng.int(1, 10 ** Math.min(a.decimals, 6) - 1)).padStart(Math.min(a.decimals, 6), '0')}`;
    return parseAmount(a.minWithdrawal).plus(extra).toFixed();
  });
  if (asset && draft.body.amount !== undefined && !draft.invalid && rng.chance(0.1)) {
    // Below the minimum withdrawal (fee plus dust): refused even though the format is fine.
    draft.body.amount = asset.withdrawalFee;
    draft.invalid = true;
    draft.notes.push('amount = fee');
  }
  const network = asset?.network ?? 'ethereum';
  field(draft, 'addressTo', mode(rng, true), {
    required: true,
    nullable: false,
    valid: () => rng.pick(FOREIGN_ADDRESSES.get(network)!),
    invalid: () => {
      const good = rng.pick(FOREIGN_ADDRESSES.get(network)!);
      switch (rng.int(0, 3)) {
        case 0:
          return rng.pick(FOREIGN_ADDRESSES.get(rng.pick([...FOREIGN_ADDRESSES.keys()].filter((n) => n !== network)))!);
        case 1: {
          // One character changed: the checksum no longer matches.
          const i = good.length - 1 - rng.int(0, 5);
          const alphabet = network === 'ethereum' ? '0123456789' : 'qpzry9x8gf2tvdw3jn54khce6mua7';
          const changed = good.slice(0, i) + [...alphabet].find((c) => c !== good[i]!.toLowerCase())! + good.slice(i + 1);
          // An Ethereum address left without lowercase or without uppercase letters has no checksum to fail.
          return network !== 'ethereum' || (/[a-f]/.test(changed.slice(2)) && /[A-F]/.test(changed)) ? changed : `${changed}0`;
        }
        case 2:
          return rng.pick([...HOSTILE_TEXT, '']);
        default:
          return rng.pick(WRONG_TYPES.filter((v) => typeof v !== 'string'));
      }
    },
  });
  if (network === 'ripple') {
    field(draft, 'destTag', mode(rng, true), {
      required: true,
      nullable: false,
      valid: () => rng.pick(['0', '1', '4294967295', String(rng.int(2, 4294967294))]),
      invalid: () => rng.pick(['4294967296', '-1', '1.5', 'abc', '', ' 1', '99999999999', 5, true, {}]),
    });
  } else {
    field(draft, 'destTag', rng.chance(0.85) ? rng.pick(['absent', 'null'] as const) : 'invalid', {
      required: false,
      nullable: true,
      valid: () => undefined,
      invalid: () => rng.pick(['1', '123456', 'abc', 7]),
    });
  }
  customer(rng, draft, mode(rng, false));
  field(draft, 'invoice', mode(rng, true), {
    required: true,
    nullable: false,
    valid: () => (rng.chance(0.05) ? 'fuzz-open' : `${rng.pick(HOSTILE_TEXT).slice(0, 180)} #${++invoiceCounter}`),
    invalid: () => rng.pick(BAD_TEXT),
  });
  extraField(rng, draft);
  return draft;
}

function devTransactionDraft(rng: Rng): Draft {
  const draft: Draft = { body: {}, invalid: false, notes: [] };
  const asset = assetField(rng, draft, mode(rng, true), assets);
  amountField(rng, draft, mode(rng, true), asset, (a) => validAmount(rng, a.decimals));
  const network = asset?.network ?? 'bitcoin';
  field(draft, 'address', mode(rng, true), {
    required: true,
    nullable: false,
    valid: () => rng.pick([...(shopAddresses.get(network) ?? []), ...FOREIGN_ADDRESSES.get(network)!]),
    invalid: () => rng.pick([...HOSTILE_TEXT.filter((t) => t.length <= 200), '', 'x'.repeat(201), 1, null, [], ...FOREIGN_ADDRESSES.get(network === 'bitcoin' ? 'ethereum' : 'bitcoin')!]),
  });
  field(draft, 'destTag', mode(rng, false), {
    required: false,
    nullable: true,
    valid: () => rng.pick(['1', '4294967295', '9999999999']),
    invalid: () => rng.pick(['-1', 'abc', '', '12345678901', 1, true]),
  });
  field(draft, 'confirmations', mode(rng, false), {
    required: false,
    nullable: false,
    valid: () => rng.pick([0, 1, 3, 1000]),
    invalid: () => rng.pick([-1, 1001, 1.5, '3', true, 1e308, null]),
  });
  extraField(rng, draft);
  return draft;
}

function blocksDraft(rng: Rng): Draft {
  const draft: Draft = { body: {}, invalid: false, notes: [] };
  field(draft, 'network', mode(rng, false), {
    required: false,
    nullable: false,
    valid: () => rng.pick(['bitcoin', 'litecoin', 'ethereum', 'tron', 'ripple']),
    invalid: () => rng.pick(['Bitcoin', 'dogecoin', '', 'n'.repeat(41), "bitcoin' --", 1, [], {}]),
  });
  field(draft, 'count', mode(rng, false), {
    required: false,
    nullable: false,
    valid: () => rng.pick([1, 2, rng.int(1, 50)]),
    invalid: () => rng.pick([0, -1, 1001, 1.5, '1', true, 1e308]),
  });
  extraField(rng, draft);
  return draft;
}

function actionDraft(rng: Rng): Draft {
  if (rng.chance(0.7)) return { body: {}, invalid: false, notes: [] };
  return { body: { [rng.pick(['status', 'reason', 'force', '__proto__'])]: rng.pick([1, 'x', true, null]) }, invalid: true, notes: ['action body with a field'] };
}

// ---- raw transformations of the bytes and headers, each with the one answer it must get

const JUNK_API_KEYS = ['ak_not-a-real-key', "' OR '1'='1", 'ak_' + 'A'.repeat(4000), '<script>', 'null', 'Bearer ak_x'];

/** Builds a POST to a JSON endpoint, possibly broken at the byte, header or auth level. */
function postCase(rng: Rng, path: string, draft: Draft, options: { signed: boolean; validOutcomes: string[]; created?: 'payment' | 'withdrawal' }): FuzzCase {
  let raw: Buffer = Buffer.from(JSON.stringify(draft.body));
  let contentType: string | undefined = rng.pick(['application/json', 'application/json', 'application/json; charset=utf-8', 'Application/JSON']);
  const extraHeaders: Record<string, string> = {};
  const notes = [...draft.notes];
  let expected = draft.invalid ? ['400 validation-failed', '400 unsupported-asset'] : options.validOutcomes;
  let signature: string | undefined;
  let apiKey: string | undefined = shop.apiKey;
  let intact = true;

  const roll = rng.next();
  if (roll < 0.06) {
    contentType = rng.pick(BAD_CONTENT_TYPES);
    expected = ['415 unsupported-media-type'];
    notes.push(`content type ${JSON.stringify(contentType)}`);
    intact = false;
  } else if (roll < 0.08) {
    extraHeaders['Content-Encoding'] = rng.pick(['gzip', 'deflate', 'br']);
    expected = ['415 unsupported-media-type'];
    notes.push(`content encoding ${extraHeaders['Content-Encoding']}`);
    intact = false;
  } else if (roll < 0.11) {
    raw = Buffer.from(oversizedBody(rng, draft.body));
    expected = ['413 payload-too-large'];
    notes.push(`${raw.length} bytes`);
    intact = false;
  } else if (roll < 0.19) {
    const valid = raw.toString();
    raw = brokenJson(rng, valid);
    if (raw.toString() === valid) raw = Buffer.from(`${valid}}`);
    expected = ['400 invalid-json'];
    notes.push(`broken JSON ${JSON.stringify(raw.toString('latin1').slice(0, 40))}`);
    intact = false;
  } else if (roll < 0.2) {
    raw = Buffer.alloc(0);
    expected = ['400 invalid-json'];
    notes.push('empty body');
    intact = false;
  } else if (roll < 0.24) {
    const replacement = rng.pick([...WRONG_TYPES.filter((v) => typeof v !== 'object' || Array.isArray(v)), null, 'null', deepJson(rng.int(100, 20000))]);
    raw = Buffer.from(typeof replacement === 'string' && replacement.startsWith('[') ? replacement : JSON.stringify(replacement));
    // The blocks endpoint reads a JSON null as "no options".
    expected = path === '/v2/dev/blocks' && raw.toString() === 'null' ? ['200'] : ['400 validation-failed'];
    notes.push(`body is ${raw.toString().slice(0, 30)}`);
    intact = false;
  } else if (roll < 0.26) {
    raw = Buffer.from(JSON.stringify({ ...draft.body, asset: 'PLACEHOLDER' }).replace('"PLACEHOLDER"', deepJson(rng.int(100, 20000))));
    expected = ['400 validation-failed'];
    notes.push('deeply nested asset');
    intact = false;
  }

  if (options.signed) {
    signature = sign(raw, shop.secretKey);
    // Auth failures are tried on otherwise well-formed requests, so the expected code is certain.
    if (intact && rng.chance(0.06)) {
      switch (rng.int(0, 4)) {
        case 0:
          apiKey = undefined;
          expected = ['401 missing-api-key'];
          break;
        case 1:
          apiKey = rng.pick(JUNK_API_KEYS);
          expected = ['401 invalid-api-key'];
          break;
        case 2:
          signature = undefined;
          expected = ['401 missing-signature'];
          break;
        case 3:
          signature = sign(raw, rival.secretKey);
          expected = ['401 invalid-signature'];
          break;
        default:
          signature = rng.pick(['', ' ', 'zz', sign(raw, shop.secretKey).slice(1), sign(Buffer.concat([raw, Buffer.from(' ')]), shop.secretKey)]);
          expected = signature.trim() === '' ? ['401 missing-signature'] : ['401 invalid-signature'];
      }
      notes.push(`auth: ${expected[0]}`);
    }
  }
  const headers: Record<string, string> = { ...extraHeaders };
  if (contentType !== undefined) headers['Content-Type'] = contentType;
  if (options.signed && apiKey !== undefined) headers['API-KEY'] = apiKey;
  if (options.signed && signature !== undefined) headers['X-HMAC'] = signature;
  const willSucceed = expected.includes('200');
  return {
    label: `POST ${path} [${notes.join('; ') || 'valid'}]`,
    method: 'POST',
    path,
    headers,
    body: raw,
    expected,
    ...(options.created && willSucceed ? { created: { kind: options.created, sent: draft.body } } : {}),
  };
}

function idSegment(rng: Rng, own: string[], foreign: string): { segment: string; kind: 'own' | 'foreign' | 'bad' } {
  const roll = rng.next();
  if (roll < 0.2) return { segment: rng.pick(own), kind: 'own' };
  if (roll < 0.3) return { segment: foreign, kind: 'foreign' };
  return { segment: rng.pick(BAD_ID_SEGMENTS), kind: 'bad' };
}

function getCase(rng: Rng, path: string, expected: string[], merchant = true): FuzzCase {
  const headers: Record<string, string> = {};
  let label = `GET ${path.length > 120 ? path.slice(0, 120) + '…' : path}`;
  if (merchant) {
    const roll = rng.next();
    if (roll < 0.04) {
      expected = ['401 missing-api-key'];
      label += ' [no key]';
    } else if (roll < 0.08) {
      headers['API-KEY'] = rng.pick(JUNK_API_KEYS);
      expected = ['401 invalid-api-key'];
      label += ' [junk key]';
    } else {
      headers['API-KEY'] = shop.apiKey;
      // A GET ignores X-HMAC entirely, whatever it holds.
      if (rng.chance(0.1)) headers['X-HMAC'] = rng.pick(['junk', sign('x', rival.secretKey)]);
    }
  }
  return { label, method: 'GET', path, headers, expected };
}

function listQuery(rng: Rng, minPage: number): { query: string; bad: boolean } {
  const parts: string[] = [];
  let bad = false;
  for (let i = rng.int(0, 3); i > 0; i--) {
    if (rng.chance(0.5)) {
      const candidates = minPage === 1 ? [...BAD_LIST_QUERIES, 'page=0'] : BAD_LIST_QUERIES;
      parts.push(rng.pick(candidates));
      bad = true;
    } else {
      parts.push(rng.pick(HARMLESS_LIST_QUERIES));
    }
  }
  const query = parts.filter((p) => p !== '').join('&');
  const params = new URLSearchParams(query);
  // Harmless parts combined can still repeat page or limit, which is refused.
  if (params.getAll('page').length > 1 || params.getAll('limit').length > 1) bad = true;
  return { query, bad };
}

const NOT_FOUND_ID = ['404 payment-not-found', '404 withdrawal-not-found', '404 not-found'];

function malformed(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return false;
  } catch {
    return true;
  }
}

/**
 * One generated request of any endpoint. A path segment that is not valid percent-encoded UTF-8,
 * or a "%2e%2e" that the URL resolves as "..", names no route at all: a 404 before
 * authentication or the body are looked at.
 */
function generate(rng: Rng): FuzzCase {
  const request = generateUnchecked(rng);
  const pathname = request.path.split('?')[0]!;
  if (request.html || !pathname.split('/').some((segment) => malformed(segment) || /^(\.|%2e){1,2}$/i.test(segment))) return request;
  return { ...request, label: `${request.label} [path names no route]`, expected: ['404 not-found'], created: undefined };
}

function generateUnchecked(rng: Rng): FuzzCase {
  const roll = rng.next();
  if (roll < 0.22) return postCase(rng, '/v2/payment', paymentDraft(rng), { signed: true, validOutcomes: ['200'], created: 'payment' });
  if (roll < 0.42) {
    return postCase(rng, '/v2/withdrawal', withdrawalDraft(rng), {
      signed: true,
      validOutcomes: ['200', '409 duplicate-invoice', '422 insufficient-funds'],
      created: 'withdrawal',
    });
  }
  if (roll < 0.49) {
    const { segment, kind } = idSegment(rng, shopWithdrawals, rivalWithdrawal);
    const action = rng.pick(['approve', 'cancel']);
    const draft = actionDraft(rng);
    const outcomes = kind === 'own' ? ['200', '409 invalid-state'] : NOT_FOUND_ID;
    return postCase(rng, `/v2/withdrawal/${segment}/${action}`, draft, { signed: true, validOutcomes: outcomes });
  }
  if (roll < 0.58) return postCase(rng, '/v2/dev/transactions', devTransactionDraft(rng), { signed: false, validOutcomes: ['200'] });
  if (roll < 0.61) return postCase(rng, '/v2/dev/blocks', blocksDraft(rng), { signed: false, validOutcomes: ['200'] });
  if (roll < 0.63) {
    return { label: 'POST drop', method: 'POST', path: `/v2/dev/transactions/${rng.pick(BAD_ID_SEGMENTS)}/drop`, headers: {}, body: Buffer.from(rng.pick(['', '{}', 'junk'])), expected: ['404 not-found'] };
  }
  if (roll < 0.69) {
    const { segment, kind } = idSegment(rng, shopPayments, rivalPayment);
    return getCase(rng, `/v2/payment/${segment}`, kind === 'own' ? ['200'] : NOT_FOUND_ID);
  }
  if (roll < 0.73) {
    const { segment, kind } = idSegment(rng, shopWithdrawals, rivalWithdrawal);
    return getCase(rng, `/v2/withdrawal/${segment}`, kind === 'own' ? ['200'] : NOT_FOUND_ID);
  }
  if (roll < 0.79) {
    const { query, bad } = listQuery(rng, 1);
    return getCase(rng, `/v2/payment${query ? `?${query}` : ''}`, bad ? ['400 validation-failed'] : ['200']);
  }
  if (roll < 0.84) {
    const { query, bad } = listQuery(rng, 0);
    return getCase(rng, `/v2/withdrawal${query ? `?${query}` : ''}`, bad ? ['400 validation-failed'] : ['200']);
  }
  if (roll < 0.86) return getCase(rng, `/v2/balance?${rng.pick(HARMLESS_LIST_QUERIES)}`, ['200']);
  if (roll < 0.9) {
    const { segment, kind } = idSegment(rng, shopPayments, rivalPayment);
    // The payer view is public: any payment's id opens it, whoever owns it.
    return getCase(rng, `/v2/checkout/${segment}`, kind === 'bad' ? NOT_FOUND_ID : ['200'], false);
  }
  if (roll < 0.92) return getCase(rng, `/v2/checkout/${rng.pick(BAD_ID_SEGMENTS)}/events`, NOT_FOUND_ID, false);
  if (roll < 0.95) {
    const { segment, kind } = idSegment(rng, shopPayments, rivalPayment);
    const query = rng.pick([`id=${segment}`, `id=${segment}&id=${segment}`, `id[]=${segment}`, '', 'id=']);
    const found = kind !== 'bad' && query === `id=${segment}`;
    return { label: `GET /pay?${query.slice(0, 80)}`, method: 'GET', path: `/pay?${query}`, headers: {}, expected: [found ? '200' : '404'], html: true };
  }
  const method = rng.pick(['GET', 'PUT', 'DELETE', 'PATCH', 'POST']);
  const path = rng.pick(['/v2/payments', '/v2/payment/x/y', '/v2', '/v2/', '/v2/%00', '/v2/balance/x', '/v2/dev', '/v2/withdrawal/x/approve/now', '/v3/payment', '/api/v2/payment']);
  const body = method === 'GET' ? undefined : Buffer.from('{}');
  return { label: `${method} ${path}`, method, path, headers: body ? { 'Content-Type': 'application/json' } : {}, ...(body ? { body } : {}), expected: ['404 not-found'] };
}

// ---- checks

interface Outcome {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

async function send(request: FuzzCase): Promise<Outcome> {
  const response = await fetch(server.url + request.path, {
    method: request.method,
    headers: request.headers,
    redirect: 'manual',
    ...(request.body ? { body: request.body } : {}),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** What is wrong with an answer, or an empty list. */
function problemsOf(request: FuzzCase, outcome: Outcome): string[] {
  const problems: string[] = [];
  if (outcome.status >= 500) problems.push(`answered ${outcome.status}`);
  if (!outcome.headers.get('x-request-id')) problems.push('no X-Request-Id');
  if (request.html) {
    if (!outcome.headers.get('content-type')?.startsWith('text/html')) problems.push(`content type ${outcome.headers.get('content-type')}`);
    if (!request.expected.includes(String(outcome.status))) problems.push(`expected ${request.expected.join(' or ')}, got ${outcome.status}`);
    return problems;
  }
  if (!outcome.headers.get('content-type')?.startsWith('application/json')) problems.push(`content type ${outcome.headers.get('content-type')}`);
  let key = String(outcome.status);
  if (outcome.status >= 400) {
    const body = outcome.json as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined;
    const error = body?.error;
    if (!body || typeof error !== 'object' || error === null || Object.keys(body).length !== 1) {
      problems.push('error body is not {"error": {...}}');
    } else {
      const extra = Object.keys(error).filter((k) => !['code', 'message', 'details'].includes(k));
      if (extra.length > 0) problems.push(`error has extra keys ${extra.join(', ')}`);
      if (typeof error.code !== 'string' || !KEBAB_CASE.test(error.code)) problems.push(`code ${JSON.stringify(error.code)} is not kebab-case`);
      if (typeof error.message !== 'string' || error.message.trim() === '') problems.push('message is not a sentence');
      if (error.details !== undefined) {
        const detailsOk =
          Array.isArray(error.details) &&
          error.details.length > 0 &&
          error.details.every((d) => typeof d === 'object' && d !== null && typeof d.path === 'string' && typeof d.message === 'string' && Object.keys(d).length === 2);
        if (!detailsOk) problems.push(`details ${JSON.stringify(error.details)} are not [{path, message}]`);
      }
      if (/SQLITE|at \/|node_modules|\.ts:\d+/.test(outcome.text)) problems.push('error leaks internals');
      key = `${outcome.status} ${String(error.code)}`;
    }
  } else if (outcome.json === undefined) {
    problems.push('body is not JSON');
  }
  if (!request.expected.includes(key)) problems.push(`expected ${request.expected.join(' or ')}, got ${key}`);
  return problems;
}

/** A created record must read back exactly as answered, with every string stored as sent. */
async function readBackProblems(request: FuzzCase, outcome: Outcome): Promise<string[]> {
  if (!request.created || outcome.status !== 200) return [];
  const record = outcome.json as Record<string, unknown>;
  const problems: string[] = [];
  const stored = await merchantApi(server, shop).get(`/${request.created.kind}/${String(record.id)}`);
  try {
    assert.deepEqual(stored.body, record);
  } catch {
    problems.push(`GET answers ${JSON.stringify(stored.body).slice(0, 400)}, unlike the create`);
  }
  const sent = request.created.sent;
  for (const name of ['invoice', 'checkoutUrl', 'addressTo', 'destTag'] as const) {
    if (sent[name] !== undefined && (sent[name] ?? null) !== record[name]) problems.push(`${name} came back as ${JSON.stringify(record[name])}`);
  }
  // An empty customer object is stored as no customer at all.
  if (typeof sent.customer === 'object' && sent.customer !== null && Object.keys(sent.customer).length > 0) {
    try {
      assert.deepEqual(record.customer, sent.customer);
    } catch {
      problems.push(`customer came back as ${JSON.stringify(record.customer)}`);
    }
  }
  if (request.created.kind === 'withdrawal') shopWithdrawals.push(String(record.id));
  else shopPayments.push(String(record.id));
  return problems;
}

describe('fuzzing every endpoint', () => {
  test(`answers ${COUNT} generated requests (seed ${SEED}) without a 5xx, in the error contract, and changes nothing it refuses`, async (t) => {
    const rng = createRng(SEED);
    const db = server.services.db;
    // A counter that moves with every write, so most requests skip the full digest. SQLite: the
    // server writes only through this one connection, whose total_changes() counts every row
    // written. PostgreSQL: every transaction that writes (even one rolled back) is assigned the next
    // transaction id, so the first unassigned one moves (other databases of the cluster move it too,
    // which only costs a digest more).
    const writeCounter = async () =>
      Number(
        (await db.get<{ n: number | string }>(server.store === 'sqlite' ? 'SELECT total_changes() AS n' : 'SELECT CAST(pg_snapshot_xmax(pg_current_snapshot()) AS text) AS n'))!.n,
      );
    let digest = await databaseDigest(db);
    let changes = await writeCounter();
    const tally = new Map<string, Map<number, number>>();
    for (let i = 0; i < COUNT; i++) {
      const request = generate(rng);
      let outcome: Outcome;
      try {
        outcome = await send(request);
      } catch (err) {
        assert.fail(`seed ${SEED}, request #${i}: ${request.label} got no answer (${(err as Error).message}); replay with FUZZ_SEED=${SEED}`);
      }
      const problems = problemsOf(request, outcome);
      problems.push(...(await readBackProblems(request, outcome)));
      // An unmoved counter proves no row was touched; when it moved, the full digest decides (a
      // rolled-back write moves the counter too).
      const changesNow = await writeCounter();
      if (changesNow !== changes) {
        const digestNow = await databaseDigest(db);
        const writeAllowed = request.method === 'POST' && outcome.status === 200;
        if (digestNow !== digest && !writeAllowed) problems.push(`the database changed (rows now ${JSON.stringify(await tableCounts(db))})`);
        digest = digestNow;
        changes = await writeCounter();
      }
      if (problems.length > 0) {
        const sentBody = request.body ? request.body.toString('utf8').slice(0, 600) : '';
        assert.fail(
          `seed ${SEED}, request #${i}: ${request.label}\n  ${problems.join('\n  ')}\n  sent: ${JSON.stringify(request.headers)} ${sentBody}\n  answer: ${outcome.status} ${outcome.text.slice(0, 600)}\n  replay with FUZZ_SEED=${SEED} FUZZ_COUNT=${i + 1}`,
        );
      }
      const route = `${request.method} ${request.path.split('?')[0]!.replace(/\/v2\/(payment|withdrawal|checkout|dev\/transactions)\/[^/]+/, '/v2/$1/:id')}`;
      const statuses = tally.get(route) ?? new Map<number, number>();
      statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
      tally.set(route, statuses);
    }
    t.diagnostic(`seed ${SEED}: ${COUNT} requests`);
    for (const [route, statuses] of [...tally].sort()) {
      if (route.startsWith('GET') || route.startsWith('POST /v2/')) t.diagnostic(`${route}: ${[...statuses].sort().map(([status, n]) => `${n}×${status}`).join(' ')}`);
    }
    // Every status an operation answered is one its OpenAPI document lists (a request to a path or
    // method the document does not have is a 404 or 405 of no operation, and is not checked).
    const doc = (await (await fetch(`${server.api}/openapi.json`)).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const undocumented: string[] = [];
    for (const [route, statuses] of tally) {
      const [method, routePath] = route.split(' ') as [string, string];
      if (!routePath.startsWith('/v2/')) continue;
      const template = routePath.slice(3).replace(/^\/dev\/transactions\/:id/, '/dev/transactions/{txnId}').replace(/:id/g, '{id}');
      const operation = doc.paths[template]?.[method.toLowerCase()];
      if (!operation) continue;
      for (const status of statuses.keys()) if (!(String(status) in operation.responses)) undocumented.push(`${route} answered ${status}`);
    }
    assert.deepEqual(undocumented, [], 'statuses the API sent that its OpenAPI document does not list');
    const health = await fetch(`${server.url}/health`);
    assert.equal(health.status, 200, 'the server still answers after the run');
  });
});

/** Writes raw bytes on a fresh connection and collects whatever comes back until it closes. */
function rawExchange(chunks: Array<string | Buffer>, options: { endAfterWrite?: boolean } = {}): Promise<string> {
  const { port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (data) => (received += data.toString('latin1')));
    socket.on('error', () => resolve(received));
    socket.on('close', () => resolve(received));
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
      if (options.endAfterWrite) socket.end();
      // Anything still open after the server had its say is closed by us.
      setTimeout(() => socket.destroy(), 500).unref();
    });
  });
}

describe('broken HTTP on the wire', () => {
  test('leaves the server up and the database unchanged after truncated, smuggled and malformed requests', async () => {
    const db = server.services.db;
    const before = await databaseDigest(db);
    const body = JSON.stringify({ amount: '1', asset: { short: 'BTC', network: 'bitcoin' } });
    const head = (extra: string) =>
      `POST /v2/payment HTTP/1.1\r\nHost: 127.0.0.1\r\nAPI-KEY: ${shop.apiKey}\r\nX-HMAC: ${sign(body, shop.secretKey)}\r\nContent-Type: application/json\r\n${extra}\r\n`;
    const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);

    // A body shorter than its Content-Length, then the client hangs up: nothing is created.
    const truncated = await rawExchange([head(`Content-Length: ${body.length + 100}\r\n`), body.slice(0, 20)], { endAfterWrite: true });
    assert.ok(statusOf(truncated) === 0 || statusOf(truncated) === 400, truncated);

    // Content-Length and Transfer-Encoding together (request smuggling): refused outright.
    const smuggled = await rawExchange([head(`Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n`), `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`]);
    assert.equal(statusOf(smuggled), 400, smuggled);

    // A chunk size that is not hexadecimal.
    const badChunk = await rawExchange([head('Transfer-Encoding: chunked\r\n'), 'zz\r\n{}\r\n0\r\n\r\n']);
    assert.equal(statusOf(badChunk), 400, badChunk);

    // A request line that is not HTTP, and headers over Node's 16 KiB limit.
    assert.equal(statusOf(await rawExchange(['GARBAGE / NONSENSE\r\n\r\n'])), 400);
    assert.equal(statusOf(await rawExchange([`GET /v2/payment HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`])), 431);

    // A chunked body over 64 KiB is cut off at the limit, without a Content-Length to warn ahead.
    const big = `{"amount":"1","asset":{"short":"BTC","network":"bitcoin"},"invoice":"${'A'.repeat(70 * 1024)}"}`;
    const chunked = await rawExchange([head('Transfer-Encoding: chunked\r\n'), `${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`]);
    assert.equal(statusOf(chunked), 413, chunked.slice(0, 200));
    assert.match(chunked, /"code":"payload-too-large"/);

    assert.equal(await databaseDigest(db), before, 'no broken request wrote anything');
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
  });
});
