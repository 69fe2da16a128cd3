/** POST /v2/payment and GET /v2/payment/:id: the record of seed section 2.4, field by field, and its validation. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { logoUrl, merchantApi, startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';

const NOW = Date.parse('2026-11-21T10:15:30.123Z');
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let server: TestServer;
let shop: TestMerchant;
let api: ReturnType<typeof merchantApi>;

before(async () => {
  server = await startTestServer();
  server.clock.set(NOW);
  shop = await server.createMerchant('Payments Shop');
  api = merchantApi(server, shop);
});
after(() => server.close());

function assetJson(short: string, network: string, name: string, logo: string, decimals: number) {
  return { short, network, name, logoUrl: logoUrl(server, logo), decimals };
}

describe('creating a payment', () => {
  test('answers 200 with every field of the payment record and the contract extensions', async () => {
    const response = await api.post('/payment', {
      amount: '0.0015',
      asset: { short: 'BTC', network: 'bitcoin' },
      customer: { id: 42, name: 'Ann Lee', email: 'ann@example.com' },
      invoice: 'order-1001',
      checkoutUrl: 'https://shop.example/orders/1001',
    });
    assert.equal(response.status, 200);
    const payment = response.body;
    assert.match(payment.id, UUID_V4);
    assert.match(payment.addressTo, /^bc1q[02-9ac-hj-np-z]{38}$/);
    assert.deepEqual(payment, {
      id: payment.id,
      transactions: [],
      amount: '0.00150000',
      totalReceivedAmount: '0.00000000',
      asset: assetJson('BTC', 'bitcoin', 'Bitcoin', 'btc', 8),
      addressTo: payment.addressTo,
      confirmsNeeded: 2,
      timeout: 3600,
      checkoutUrl: 'https://shop.example/orders/1001',
      status: 'OPEN',
      customer: { id: 42, name: 'Ann Lee', email: 'ann@example.com' },
      merchant: shop.merchant,
      invoice: 'order-1001',
      paymentRedirectUrl: `${server.url}/pay?id=${payment.id}`,
      createdAt: '2026-11-21T10:15:30.123Z',
      updatedAt: '2026-11-21T10:15:30.123Z',
      expiresAt: '2026-11-21T11:15:30.123Z',
      amountDue: '0.00150000',
      destTag: null,
      paymentUri: `bitcoin:${payment.addressTo}?amount=0.0015`,
      price: null,
      rate: null,
      exception: null,
      overpaidAmount: null,
      refundableAmount: '0.00000000',
    });
  });

  test('answers the same record from GET /v2/payment/:id', async () => {
    const created = await api.post('/payment', { amount: '25', asset: { short: 'USDT', network: 'tron' }, invoice: 'order-1002' });
    const fetched = await api.get(`/payment/${created.body.id}`);
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body, created.body);
  });

  test('answers on create exactly what later fetches answer, whatever optional fields were sent', async () => {
    for (const extra of [
      {},
      { customer: {} },
      { customer: null, invoice: null, checkoutUrl: null },
      { customer: { email: 'z@example.com', id: 0 } },
      { customer: { name: 'Zoë' }, invoice: 'ü-1', timeout: 60 },
    ]) {
      const created = await api.post('/payment', { amount: '1.5', asset: { short: 'XRP', network: 'ripple' }, ...extra });
      assert.equal(created.status, 200, JSON.stringify(extra));
      assert.deepEqual((await api.get(`/payment/${created.body.id}`)).body, created.body, JSON.stringify(extra));
      const listed = await api.get(`/payment?ids=${created.body.id}`);
      assert.deepEqual(listed.body.data, [created.body], JSON.stringify(extra));
    }
  });

  test('treats an empty customer object as no customer', async () => {
    const { body } = await api.post('/payment', { amount: '1', asset: { short: 'LTC', network: 'litecoin' }, customer: {} });
    assert.equal(body.customer, null);
  });

  test('leaves optional fields null when they are not sent', async () => {
    const { status, body } = await api.post('/payment', { amount: '1', asset: { short: 'LTC', network: 'litecoin' } });
    assert.equal(status, 200);
    assert.equal(body.customer, null);
    assert.equal(body.invoice, null);
    assert.equal(body.checkoutUrl, null);
    assert.equal(body.confirmsNeeded, 3);
    assert.equal(body.amount, '1.00000000');
  });

  test('keeps only the customer fields that were sent', async () => {
    const { body } = await api.post('/payment', { amount: '1', asset: { short: 'LTC', network: 'litecoin' }, customer: { email: 'bob@example.com' } });
    assert.deepEqual(body.customer, { email: 'bob@example.com' });
  });

  test('renders amounts with exactly the asset decimals', async () => {
    const usdt = await api.post('/payment', { amount: '25', asset: { short: 'USDT', network: 'ethereum' } });
    assert.equal(usdt.body.amount, '25.000000');
    assert.equal(usdt.body.totalReceivedAmount, '0.000000');
    assert.equal(usdt.body.amountDue, '25.000000');
    assert.deepEqual(usdt.body.asset, assetJson('USDT', 'ethereum', 'Tether USD (ERC-20)', 'usdt', 6));
    const eth = await api.post('/payment', { amount: '0.12345678', asset: { short: 'ETH', network: 'ethereum' } });
    assert.equal(eth.body.amount, '0.12345678');
    assert.equal(eth.body.paymentUri, `ethereum:${eth.body.addressTo}@1?value=123456780000000000`);
  });

  test('gives an ERC-20 payment a token transfer URI in base units', async () => {
    const { body } = await api.post('/payment', { amount: '25.5', asset: { short: 'USDC', network: 'ethereum' } });
    assert.equal(body.paymentUri, `ethereum:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48@1/transfer?address=${body.addressTo}&uint256=25500000`);
  });

  test('gives an XRP payment a destination tag and a URI that carries it', async () => {
    const { status, body } = await api.post('/payment', { amount: '10', asset: { short: 'XRP', network: 'ripple' } });
    assert.equal(status, 200);
    assert.match(body.destTag, /^[0-9]+$/);
    assert.equal(body.confirmsNeeded, 1);
    assert.equal(body.paymentUri, `ripple:${body.addressTo}?dt=${body.destTag}&amount=10`);
  });

  test('takes the timeout extension in seconds and derives expiresAt from it', async () => {
    const { status, body } = await api.post('/payment', { amount: '1', asset: { short: 'TRX', network: 'tron' }, timeout: 900 });
    assert.equal(status, 200);
    assert.equal(body.timeout, 900);
    assert.equal(body.expiresAt, '2026-11-21T10:30:30.123Z');
    assert.equal(body.paymentUri, body.addressTo);
  });

  test('accepts an asset object sent back with its name and logoUrl', async () => {
    const asset = assetJson('BTC', 'bitcoin', 'Bitcoin', 'btc', 8);
    const { status, body } = await api.post('/payment', { amount: '0.5', asset });
    assert.equal(status, 200);
    assert.deepEqual(body.asset, asset);
  });

  test('accepts the largest amount and the finest fraction an asset allows', async () => {
    const largest = await api.post('/payment', { amount: '1000000000', asset: { short: 'USDT', network: 'tron' } });
    assert.equal(largest.status, 200);
    assert.equal(largest.body.amount, '1000000000.000000');
    // One smallest unit, on a network without a dust limit (Bitcoin's is refused below).
    const finest = await api.post('/payment', { amount: '0.00000001', asset: { short: 'ETH', network: 'ethereum' } });
    assert.equal(finest.status, 200);
    assert.equal(finest.body.amount, '0.00000001');
  });
});

describe('refusing a bad payment', () => {
  async function expectInvalid(body: unknown, details: Array<{ path: string; message: string }>) {
    const response = await api.post('/payment', body);
    assert.equal(response.status, 400);
    const fields = details.map((d) => d.path || '(body)').join(', ');
    assert.deepEqual(response.body, { error: { code: 'validation-failed', message: `The request has invalid fields: ${fields}.`, details } });
  }

  test('tells a JSON number from another wrong type in an amount', async () => {
    for (const amount of [null, true, ['1'], { value: '1' }]) {
      await expectInvalid({ amount, asset: { short: 'BTC', network: 'bitcoin' } }, [{ path: 'amount', message: 'must be a decimal number in a string, like "10.50"' }]);
    }
  });

  test('lists every bad field at once', async () => {
    await expectInvalid(
      { amount: 10, asset: { short: '', network: 'bitcoin' }, customer: { id: 1.5, email: 'not-an-email' }, checkoutUrl: 'javascript:alert(1)', color: 'red' },
      [
        { path: 'amount', message: 'must be a decimal number in a string, like "10.50" (JSON numbers lose precision, so they are refused)' },
        { path: 'asset.short', message: 'must not be empty' },
        { path: 'customer.id', message: 'must be a whole number' },
        { path: 'customer.email', message: 'must be an e-mail address' },
        { path: 'checkoutUrl', message: 'must be an absolute http:// or https:// URL' },
        { path: 'color', message: 'is not a field of this request (names are case-sensitive)' },
      ],
    );
  });

  test('requires amount (or price) and asset', async () => {
    await expectInvalid({}, [
      { path: 'amount', message: 'is required (or price, to price the payment in a fiat currency)' },
      { path: 'asset', message: 'is required' },
    ]);
  });

  test('requires asset.short and asset.network', async () => {
    await expectInvalid({ amount: '1', asset: {} }, [
      { path: 'asset.short', message: 'is required' },
      { path: 'asset.network', message: 'is required' },
    ]);
  });

  test('refuses a body that is not an object', async () => {
    await expectInvalid(['1'], [{ path: '', message: 'the body must be an object' }]);
  });

  for (const [amount, message] of [
    ['0', 'must be greater than zero'],
    ['0.000', 'must be greater than zero'],
    ['-1', 'must be digits with an optional decimal point, like "10.50" (no sign, exponent or spaces)'],
    ['1e3', 'must be digits with an optional decimal point, like "10.50" (no sign, exponent or spaces)'],
    [' 1', 'must be digits with an optional decimal point, like "10.50" (no sign, exponent or spaces)'],
    ['1.', 'must be digits with an optional decimal point, like "10.50" (no sign, exponent or spaces)'],
    ['.5', 'must be digits with an optional decimal point, like "10.50" (no sign, exponent or spaces)'],
    ['1000000000.01', 'must be at most 1000000000'],
    ['0.000000001', 'must have at most 8 decimal places for BTC'],
    ['1'.repeat(41), 'must be at most 40 characters'],
  ] as const) {
    test(`refuses the amount "${amount}" naming the field once`, async () => {
      await expectInvalid({ amount, asset: { short: 'BTC', network: 'bitcoin' } }, [{ path: 'amount', message }]);
    });
  }

  test('refuses an amount below the network\'s dust limit, which many wallets will not send; accepts the limit itself', async () => {
    await expectInvalid({ amount: '0.00000545', asset: { short: 'BTC', network: 'bitcoin' } }, [
      { path: 'amount', message: "must be at least 0.00000546 BTC, Bitcoin's dust limit: many wallets will not send less, and nothing this small could be refunded" },
    ]);
    await expectInvalid({ amount: '0.00005', asset: { short: 'LTC', network: 'litecoin' } }, [
      { path: 'amount', message: "must be at least 0.0000546 LTC, Litecoin's dust limit: many wallets will not send less, and nothing this small could be refunded" },
    ]);
    assert.equal((await api.post('/payment', { amount: '0.00000546', asset: { short: 'BTC', network: 'bitcoin' } })).status, 200);
    // Networks without a dust limit take one smallest unit.
    assert.equal((await api.post('/payment', { amount: '0.000001', asset: { short: 'USDT', network: 'ethereum' } })).status, 200);
  });

  test('refuses more fractional digits than a 6-decimal asset has', async () => {
    await expectInvalid({ amount: '1.0000001', asset: { short: 'USDT', network: 'ethereum' } }, [
      { path: 'amount', message: 'must have at most 6 decimal places for USDT' },
    ]);
  });

  test('refuses an invoice over 200 characters and a blank one', async () => {
    await expectInvalid({ amount: '1', asset: { short: 'BTC', network: 'bitcoin' }, invoice: 'x'.repeat(201) }, [
      { path: 'invoice', message: 'must be at most 200 characters' },
    ]);
    await expectInvalid({ amount: '1', asset: { short: 'BTC', network: 'bitcoin' }, invoice: '   ' }, [{ path: 'invoice', message: 'must not be empty' }]);
  });

  test('refuses a customer name over 200 characters and a negative customer id', async () => {
    await expectInvalid({ amount: '1', asset: { short: 'BTC', network: 'bitcoin' }, customer: { id: -1, name: 'n'.repeat(201) } }, [
      { path: 'customer.id', message: 'must not be negative' },
      { path: 'customer.name', message: 'must be at most 200 characters' },
    ]);
  });

  test('refuses a checkoutUrl that is not http or https', async () => {
    for (const checkoutUrl of ['ftp://shop.example/x', 'shop.example/back', 'data:text/html,hi']) {
      await expectInvalid({ amount: '1', asset: { short: 'BTC', network: 'bitcoin' }, checkoutUrl }, [
        { path: 'checkoutUrl', message: 'must be an absolute http:// or https:// URL' },
      ]);
    }
  });

  test('refuses a timeout under a minute or in fractions of a second', async () => {
    await expectInvalid({ amount: '1', asset: { short: 'BTC', network: 'bitcoin' }, timeout: 59 }, [{ path: 'timeout', message: 'must be at least 60 seconds' }]);
    await expectInvalid({ amount: '1', asset: { short: 'BTC', network: 'bitcoin' }, timeout: 90.5 }, [
      { path: 'timeout', message: 'must be a whole number of seconds' },
    ]);
  });

  test('names an unserved pair as unsupported-asset', async () => {
    const response = await api.post('/payment', { amount: '1', asset: { short: 'BTC', network: 'ethereum' } });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'unsupported-asset');
    assert.match(response.body.error.message, /^BTC on network "ethereum" is not a served asset; served pairs are BTC\/bitcoin, .*XRP\/ripple, XMR\/monero\.$/);
    assert.deepEqual(Object.keys(response.body.error), ['code', 'message']);
  });

  test('treats asset names case-sensitively, as the registry spells them', async () => {
    const response = await api.post('/payment', { amount: '1', asset: { short: 'btc', network: 'bitcoin' } });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'unsupported-asset');
  });
});

describe('fetching a payment', () => {
  test('answers 404 payment-not-found for an unknown id and for a malformed one', async () => {
    for (const id of ['6f1c2e8a-4b1d-4c55-9a7e-2f5a4c3b2a10', 'not-a-uuid']) {
      const response = await api.get(`/payment/${id}`);
      assert.equal(response.status, 404);
      assert.deepEqual(response.body, { error: { code: 'payment-not-found', message: `No payment with id "${id}" exists for this merchant.` } });
    }
  });
});
