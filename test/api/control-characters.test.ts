/**
 * Control characters (C0 with NUL, DEL, C1) in any URL or text field of a request body or query are
 * refused with 400 validation-failed naming the field, the same on SQLite and PostgreSQL (which
 * cannot store NUL and answered 500 where SQLite stored it), and nothing is written.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fromDomainError } from '../../api/http/api-error.ts';
import { DomainError } from '../../api/shared/errors.ts';
import { merchantApi, postJson, startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';
import { parseOrThrow } from '../../api/shared/validation.ts';
import { CreateMerchantInput } from '../../api/merchants/merchant.schema.ts';

const BTC = { short: 'BTC', network: 'bitcoin' };
const ETH = { short: 'ETH', network: 'ethereum' };
const ETH_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

/** NUL, another C0 character (escape), DEL and a C1 character (the 8-bit CSI). */
const CONTROLS = [
  ['NUL', '\u0000'],
  ['ESC', '\u001b'],
  ['DEL', '\u007f'],
  ['CSI', '\u009b'],
] as const;

/** Puts a control character before the last character of a valid value (a URL still parses: its path takes it). */
const spoil = (value: string, control: string) => `${value.slice(0, -1)}${control}${value.slice(-1)}`;

/** A copy of `body` with the field at a dotted path spoiled. */
function spoiled(body: Record<string, unknown>, path: string, control: string): Record<string, unknown> {
  const copy = structuredClone(body);
  const keys = path.split('.');
  let target = copy;
  for (const key of keys.slice(0, -1)) target = target[key] as Record<string, unknown>;
  const last = keys.at(-1)!;
  target[last] = spoil(target[last] as string, control);
  return copy;
}

/** The whole answer to a request with one bad field. */
function refused(path: string) {
  return {
    status: 400,
    body: {
      error: {
        code: 'validation-failed',
        message: `The request has invalid fields: ${path}.`,
        details: [{ path, message: 'must not contain control characters' }],
      },
    },
  };
}

const PAYMENT = {
  amount: '0.5',
  asset: { ...BTC, name: 'Bitcoin', logoUrl: 'https://shop.example/btc.svg' },
  invoice: 'order-1001',
  checkoutUrl: 'https://shop.example/return',
  customer: { name: 'Ada Lovelace', email: 'ada@shop.example' },
};
const WITHDRAWAL = { amount: '0.5', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'payout-1001', customer: { name: 'Ada Lovelace' } };
const TRANSACTION = { address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', amount: '0.1', asset: BTC };

let server: TestServer;
let shop: TestMerchant;
let api: ReturnType<typeof merchantApi>;

before(async () => {
  server = await startTestServer();
  shop = await server.createMerchant('Control Shop');
  api = merchantApi(server, shop);
});
after(() => server.close());

describe('control characters in request bodies', () => {
  const cases: Array<[string, string, Record<string, unknown>, string[]]> = [
    ['merchant', '/payment', PAYMENT, ['invoice', 'checkoutUrl', 'customer.name', 'asset.short', 'asset.network', 'asset.name', 'asset.logoUrl']],
    ['merchant', '/withdrawal', WITHDRAWAL, ['addressTo', 'invoice', 'customer.name', 'asset.short', 'asset.network']],
    ['merchant', '/webhooks', { url: 'https://shop.example/webhooks' }, ['url']],
    ['simulator', '/dev/transactions', TRANSACTION, ['address', 'asset.short', 'asset.network']],
    ['simulator', '/dev/blocks', { network: 'bitcoin', count: 1 }, ['network']],
  ];
  for (const [caller, route, body, paths] of cases) {
    for (const path of paths) {
      test(`POST ${route}: ${path} with NUL, ESC, DEL or CSI is refused, naming the field`, async () => {
        for (const [name, control] of CONTROLS) {
          const sent = spoiled(body, path, control);
          const response = caller === 'merchant' ? await api.post(route, sent) : await postJson(`${server.api}${route}`, sent);
          assert.deepEqual({ status: response.status, body: response.body }, refused(path), `${path} with ${name}`);
        }
      });
    }
  }

  test('nothing refused was stored', async () => {
    assert.deepEqual((await api.get('/payment')).body.total, 0);
    assert.deepEqual((await api.get('/withdrawal')).body.total, 0);
    assert.deepEqual((await api.get('/webhooks')).body.total, 0);
  });
});

describe('control characters in list queries', () => {
  for (const route of ['/payment', '/withdrawal']) {
    for (const filter of ['ids', 'invoices', 'txnIds']) {
      test(`GET ${route}?${filter}= with NUL, ESC, DEL or CSI is refused, naming the value`, async () => {
        for (const [name, control] of CONTROLS) {
          const response = await api.get(`${route}?${filter}=${encodeURIComponent(`order${control}1`)}`);
          assert.deepEqual({ status: response.status, body: response.body }, refused(`${filter}.0`), `${filter} with ${name}`);
        }
      });
    }
  }
});

describe('control characters in what an operator gives the CLI', () => {
  const MERCHANT = { name: 'Corner Shop', email: 'owner@corner.example', siteUrl: 'https://corner.example/shop', logoUrl: 'https://corner.example/logo.png' };
  for (const path of ['name', 'siteUrl', 'logoUrl']) {
    test(`merchant create: ${path} with NUL, ESC, DEL or CSI is refused, naming the field`, async () => {
      for (const [name, control] of CONTROLS) {
        let error: unknown;
        try {
          parseOrThrow(CreateMerchantInput, spoiled(MERCHANT, path, control));
        } catch (e) {
          error = e;
        }
        assert.ok(error instanceof DomainError, String(error));
        const answered = fromDomainError(error);
        assert.deepEqual({ status: answered.status, body: answered.toBody() }, refused(path), `${path} with ${name}`);
      }
    });
  }
});
