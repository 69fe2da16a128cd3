/** GET /v2/assets and the asset registry: the served pairs with name, logo, decimals and confirmations; a new asset is a data change. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createApp } from '../../api/app.ts';
import { loadConfig } from '../../api/config.ts';
import { addressCodec } from '../../api/networks/address-codecs.ts';
import { createServices } from '../../api/services.ts';
import { createManualClock } from '../../api/shared/clock.ts';
import { silentLogger } from '../../api/shared/logger.ts';
import { getJson, logoUrl, merchantApi, openTestStore, postJson, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { parseOrThrow } from '../../api/shared/validation.ts';
import { CreateMerchantInput } from '../../api/merchants/merchant.schema.ts';

describe('GET /v2/assets', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('lists the nine default pairs with name, served logo, decimals, confirmations and withdrawal fee', async () => {
    const response = await fetch(`${server.api}/assets`, { headers: { Origin: 'https://shop.example' } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    const logo = (name: string) => logoUrl(server, name);
    assert.deepEqual(await response.json(), {
      data: [
        { short: 'BTC', network: 'bitcoin', name: 'Bitcoin', logoUrl: logo('btc'), decimals: 8, confirmsNeeded: 2, withdrawalFee: '0.00002000', minWithdrawal: '0.00002546' },
        { short: 'LTC', network: 'litecoin', name: 'Litecoin', logoUrl: logo('ltc'), decimals: 8, confirmsNeeded: 3, withdrawalFee: '0.00010000', minWithdrawal: '0.00015460' },
        { short: 'ETH', network: 'ethereum', name: 'Ether', logoUrl: logo('eth'), decimals: 8, confirmsNeeded: 3, withdrawalFee: '0.00050000', minWithdrawal: '0.00050001' },
        { short: 'USDT', network: 'ethereum', name: 'Tether USD (ERC-20)', logoUrl: logo('usdt'), decimals: 6, confirmsNeeded: 3, withdrawalFee: '3.000000', minWithdrawal: '3.000001' },
        { short: 'USDC', network: 'ethereum', name: 'USD Coin (ERC-20)', logoUrl: logo('usdc'), decimals: 6, confirmsNeeded: 3, withdrawalFee: '3.000000', minWithdrawal: '3.000001' },
        { short: 'USDT', network: 'tron', name: 'Tether USD (TRC-20)', logoUrl: logo('usdt'), decimals: 6, confirmsNeeded: 3, withdrawalFee: '1.000000', minWithdrawal: '1.000001' },
        { short: 'TRX', network: 'tron', name: 'TRON', logoUrl: logo('trx'), decimals: 6, confirmsNeeded: 3, withdrawalFee: '1.000000', minWithdrawal: '1.000001' },
        { short: 'XRP', network: 'ripple', name: 'XRP', logoUrl: logo('xrp'), decimals: 6, confirmsNeeded: 1, withdrawalFee: '0.000012', minWithdrawal: '0.000013' },
        { short: 'XMR', network: 'monero', name: 'Monero', logoUrl: logo('xmr'), decimals: 8, confirmsNeeded: 10, withdrawalFee: '0.00010000', minWithdrawal: '0.00010001' },
      ],
    });
  });

  test('GET /health names the simulator as what serves each network without a node', async () => {
    const simulated = { source: 'simulator' };
    assert.deepEqual((await getJson(`${server.url}/health`)).body, {
      status: 'ok',
      networks: { bitcoin: simulated, litecoin: simulated, ethereum: simulated, tron: simulated, ripple: simulated, monero: simulated },
      // No fiat price asked for yet: the default rate sources have not been used.
      rateSources: Object.fromEntries(['bitstamp', 'coinbase', 'kraken'].map((name) => [name, { status: 'unused', lastSuccessAt: null, error: null }])),
    });
  });

  test('refuses a withdrawal below the minimum (fee plus dust) with a validation error naming it', async () => {
    const shop = await server.createMerchant('Dust Shop');
    const api = merchantApi(server, shop);
    const dust = await api.post('/withdrawal', { amount: '0.00002001', asset: { short: 'BTC', network: 'bitcoin' }, addressTo: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', invoice: 'dust-1' });
    assert.equal(dust.status, 400);
    assert.deepEqual(dust.body.error.details, [
      { path: 'amount', message: 'must be at least the minimum withdrawal of 0.00002546 BTC (the network fee of 0.00002000 plus the smallest payout the network relays)' },
    ]);
  });

  test('serves every logo it points at as SVG', async () => {
    const { body } = await getJson<{ data: Array<{ logoUrl: string }> }>(`${server.api}/assets`);
    for (const url of new Set(body.data.map((a) => a.logoUrl))) {
      const response = await fetch(url);
      assert.equal(response.status, 200, url);
      assert.equal(response.headers.get('content-type'), 'image/svg+xml');
      assert.match(await response.text(), /^<svg[\s>]/);
    }
  });
});

describe('the asset registry', () => {
  let dataDir: string;
  let stop: () => Promise<void>;
  let api: string;
  let shop: ReturnType<typeof merchantApi>;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-assets-'));
    const { db, database } = await openTestStore(dataDir);
    // What an operator's data migration would do: one row, no code.
    assert.equal(
      await db.run(
        `INSERT INTO assets (short, network, name, logo, decimals, chain_decimals, contract_address, withdrawal_fee)
         VALUES ('DAI', 'ethereum', 'Dai Stablecoin', 'https://cdn.example/dai.svg', 8, 18, '0x6B175474E89094C44Da98b954EedeAC495271d0F', '2')`,
      ),
      1,
    );
    assert.equal(await db.run("UPDATE networks SET confirmations_needed = 6 WHERE name = 'bitcoin'"), 1);
    const config = loadConfig({ DATA_DIR: dataDir, SIMULATOR: 'on', SIMULATOR_BLOCK_SECONDS: '0', ADDRESS_POOL_SIZE: '0', LOG_LEVEL: 'silent' });
    const services = await createServices({
      db,
      config: { ...config, databaseUrl: database?.url },
      clock: createManualClock(Date.now()),
      logger: silentLogger(),
      serverKey: randomBytes(32),
    });
    const server: http.Server = await new Promise((resolve) => {
      const listening = createApp(services).listen(0, '127.0.0.1', () => resolve(listening));
    });
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
    shop = merchantApi({ api }, await services.merchants.create(parseOrThrow(CreateMerchantInput, { name: 'Data Shop' })));
    stop = async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await services.close();
      await db.close();
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    };
  });
  after(() => stop());

  test('serves an asset added as a row, with its own logo URL, decimals and fee', async () => {
    const { body } = await getJson<{ data: Array<Record<string, unknown>> }>(`${api}/assets`);
    assert.deepEqual(body.data.at(-1), {
      short: 'DAI',
      network: 'ethereum',
      name: 'Dai Stablecoin',
      logoUrl: 'https://cdn.example/dai.svg',
      decimals: 8,
      confirmsNeeded: 3,
      withdrawalFee: '2.00000000',
      minWithdrawal: '2.00000001',
    });
  });

  test('takes payments in the new asset on its network, with a token URI in chain units', async () => {
    const payment = await shop.post('/payment', { amount: '12.5', asset: { short: 'DAI', network: 'ethereum' } });
    assert.equal(payment.status, 200);
    assert.equal(payment.body.amount, '12.50000000');
    assert.ok(addressCodec('ethereum', 'main').isValid(payment.body.addressTo));
    assert.equal(payment.body.paymentUri, `ethereum:0x6B175474E89094C44Da98b954EedeAC495271d0F@1/transfer?address=${payment.body.addressTo}&uint256=12500000000000000000`);
    await postJson(`${api}/dev/transactions`, { address: payment.body.addressTo, amount: '12.5', asset: { short: 'DAI', network: 'ethereum' }, confirmations: 3 });
    const paid = await shop.get(`/payment/${payment.body.id}`);
    assert.equal(paid.body.status, 'COMPLETE');
    assert.deepEqual((await shop.get('/balance')).body.data.map((b: { asset: { short: string }; available: string }) => [b.asset.short, b.available]), [['DAI', '12.50000000']]);
  });

  test('applies a network\'s confirmations as the data says', async () => {
    const payment = await shop.post('/payment', { amount: '1', asset: { short: 'BTC', network: 'bitcoin' } });
    assert.equal(payment.body.confirmsNeeded, 6);
    await postJson(`${api}/dev/transactions`, { address: payment.body.addressTo, amount: '1', asset: { short: 'BTC', network: 'bitcoin' }, confirmations: 5 });
    assert.equal((await shop.get(`/payment/${payment.body.id}`)).body.status, 'CONFIRMING');
    await postJson(`${api}/dev/blocks`, { network: 'bitcoin' });
    assert.equal((await shop.get(`/payment/${payment.body.id}`)).body.status, 'COMPLETE');
  });
});
