/** Receiving addresses (checksum-valid, HD-derived, never reused, pooled) and withdrawal address validation per network. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { HDKey } from '@scure/bip32';
import { base58, base58xrp, bech32 } from '@scure/base';
import { addressCodec } from '../../api/networks/address-codecs.ts';
import { createAddressPool } from '../../api/networks/address-pool.ts';
import { CLAIM_POOLED } from '../../api/networks/address.store.ts';
import { silentLogger } from '../../api/shared/logger.ts';
import { findNode, type PlanNode } from '../helpers/query-plan.ts';
import { merchantApi, postJson, startTestServer, type TestServer } from '../helpers/test-server.ts';

type Api = ReturnType<typeof merchantApi>;

const ASSETS = [
  { short: 'BTC', network: 'bitcoin' },
  { short: 'LTC', network: 'litecoin' },
  { short: 'ETH', network: 'ethereum' },
  { short: 'USDT', network: 'ethereum' },
  { short: 'USDC', network: 'ethereum' },
  { short: 'USDT', network: 'tron' },
  { short: 'TRX', network: 'tron' },
  { short: 'XRP', network: 'ripple' },
];

const sha256 = (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest());
const doubleSha256 = (bytes: Uint8Array) => sha256(sha256(bytes));
const hash160 = (bytes: Uint8Array) => new Uint8Array(createHash('ripemd160').update(sha256(bytes)).digest());
const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** Checks an address by each network's published rules, without the service's codecs. */
function independentlyValid(network: string, address: string): boolean {
  switch (network) {
    case 'bitcoin':
    case 'litecoin': {
      const { prefix, words } = bech32.decode(address as `${string}1${string}`);
      return prefix === (network === 'bitcoin' ? 'bc' : 'ltc') && words[0] === 0 && bech32.fromWords(words.slice(1)).length === 20;
    }
    case 'ethereum': {
      const lower = address.slice(2).toLowerCase();
      const hash = Buffer.from(keccak_256(new TextEncoder().encode(lower))).toString('hex');
      const checksummed = '0x' + [...lower].map((c, i) => (parseInt(hash[i]!, 16) >= 8 ? c.toUpperCase() : c)).join('');
      return /^0x[0-9a-fA-F]{40}$/.test(address) && address === checksummed && address !== address.toLowerCase();
    }
    case 'tron':
    case 'ripple': {
      const bytes = network === 'tron' ? base58.decode(address) : base58xrp.decode(address);
      const payload = bytes.subarray(0, 21);
      return bytes.length === 25 && payload[0] === (network === 'tron' ? 0x41 : 0x00) && sameBytes(bytes.subarray(21), doubleSha256(payload).subarray(0, 4));
    }
    default:
      return false;
  }
}

async function tableAddress(server: TestServer, paymentId: string) {
  return (await server.services.db.get<{
    network: string;
    address: string;
    dest_tag: string | null;
    derivation_index: number | null;
  }>('SELECT network, address, dest_tag, derivation_index FROM addresses WHERE payment_id = ?', [paymentId]))!;
}

async function xpubOf(server: TestServer, network: string): Promise<string> {
  return (await server.services.db.get<{ xpub: string }>('SELECT xpub FROM hd_accounts WHERE network = ?', [network]))!.xpub;
}

describe('receiving addresses', () => {
  let server: TestServer;
  let api: Api;
  const created: Array<{ id: string; addressTo: string; destTag: string | null; asset: { short: string; network: string } }> = [];

  before(async () => {
    server = await startTestServer();
    api = merchantApi(server, await server.createMerchant('Address Shop'));
    const other = merchantApi(server, await server.createMerchant('Second Shop'));
    for (let round = 0; round < 6; round++) {
      for (const asset of ASSETS) {
        const client = round % 2 === 0 ? api : other;
        const { status, body } = await client.post('/payment', { amount: '1', asset });
        assert.equal(status, 200);
        created.push(body);
      }
    }
  });
  after(() => server.close());

  test('are checksum-valid addresses of the payment\'s network, by the service\'s codecs and by independent checks', () => {
    for (const payment of created) {
      const { network } = payment.asset;
      assert.ok(addressCodec(network, 'main').isValid(payment.addressTo), `${network} ${payment.addressTo}`);
      assert.ok(independentlyValid(network, payment.addressTo), `${network} ${payment.addressTo}`);
    }
  });

  test('have the expected form per network', () => {
    const forms: Record<string, RegExp> = {
      bitcoin: /^bc1q[02-9ac-hj-np-z]{38}$/,
      litecoin: /^ltc1q[02-9ac-hj-np-z]{38}$/,
      ethereum: /^0x[0-9a-fA-F]{40}$/,
      tron: /^T[1-9A-HJ-NP-Za-km-z]{33}$/,
      ripple: /^r[1-9A-HJ-NP-Za-km-z]{24,34}$/,
    };
    for (const payment of created) assert.match(payment.addressTo, forms[payment.asset.network]!);
  });

  test('are never reused, across merchants and across assets that share a network', () => {
    const derived = created.filter((p) => p.asset.network !== 'ripple');
    assert.equal(new Set(derived.map((p) => p.addressTo)).size, derived.length);
    const ethereum = created.filter((p) => p.asset.network === 'ethereum');
    assert.equal(ethereum.length, 18);
    assert.equal(new Set(ethereum.map((p) => p.addressTo.toLowerCase())).size, 18);
    for (const payment of derived) assert.equal(payment.destTag, null);
  });

  test('give XRP payments one shared classic address and a unique destination tag each', () => {
    const ripple = created.filter((p) => p.asset.network === 'ripple');
    assert.equal(new Set(ripple.map((p) => p.addressTo)).size, 1);
    assert.equal(new Set(ripple.map((p) => p.destTag)).size, ripple.length);
    for (const payment of ripple) {
      assert.match(payment.destTag!, /^[1-9][0-9]{0,9}$/);
      assert.ok(Number(payment.destTag) <= 4294967295);
    }
  });

  test('are derived publicly from the installation\'s xpub at the recorded index (BIP32, external chain)', async () => {
    const account = HDKey.fromExtendedKey(await xpubOf(server, 'bitcoin'));
    const indexes = new Set<number>();
    for (const payment of created.filter((p) => p.asset.network === 'bitcoin')) {
      const row = await tableAddress(server, payment.id);
      assert.equal(row.address, payment.addressTo);
      assert.equal(typeof row.derivation_index, 'number');
      indexes.add(row.derivation_index!);
      const publicKey = account.deriveChild(0).deriveChild(row.derivation_index!).publicKey!;
      assert.equal(bech32.encode('bc', [0, ...bech32.toWords(hash160(publicKey))]), payment.addressTo);
    }
    assert.equal(indexes.size, 6);
    assert.ok(!(await xpubOf(server, 'bitcoin')).startsWith('xprv'), 'only the public key is stored');
  });

  test('route a payer\'s transaction to exactly the payment it was given to', async () => {
    const payment = created.find((p) => p.asset.short === 'USDC')!;
    await postJson(`${server.api}/dev/transactions`, { address: payment.addressTo, amount: '1', asset: payment.asset, confirmations: 3 });
    const paid = await server.services.db.all('SELECT payment_id FROM payment_transactions');
    assert.deepEqual(paid, [{ payment_id: payment.id }], 'none of the other 17 ethereum payments');
  });

  test('are paid by any valid spelling of the address: upper-case bech32, all-lowercase Ethereum', async () => {
    const spellings = [
      { payment: created.find((p) => p.asset.short === 'BTC')!, spell: (address: string) => address.toUpperCase() },
      { payment: created.find((p) => p.asset.short === 'LTC')!, spell: (address: string) => address.toUpperCase() },
      { payment: created.find((p) => p.asset.short === 'USDT' && p.asset.network === 'ethereum')!, spell: (address: string) => address.toLowerCase() },
    ];
    for (const { payment, spell } of spellings) {
      assert.notEqual(spell(payment.addressTo), payment.addressTo);
      const sent = await postJson(`${server.api}/dev/transactions`, { address: spell(payment.addressTo), amount: '1', asset: payment.asset, confirmations: 3 });
      assert.equal(sent.status, 200);
      assert.equal(sent.body.addressTo, payment.addressTo, 'recorded in the spelling the payment shows');
      const { body } = await api.get(`/payment/${payment.id}`);
      assert.equal(body.transactions.length, 1, `${payment.asset.short} paid through ${spell(payment.addressTo)}`);
      assert.equal(body.status, 'COMPLETE');
    }
    // Base58 is case-sensitive: another case is another (invalid) address, refused.
    const tron = created.find((p) => p.asset.network === 'tron')!;
    const refused = await postJson(`${server.api}/dev/transactions`, { address: tron.addressTo.toLowerCase(), amount: '1', asset: tron.asset });
    assert.equal(refused.status, 400);
  });
});

describe('withdrawal addressTo', () => {
  let server: TestServer;
  let api: Api;
  let invoice = 0;

  before(async () => {
    server = await startTestServer();
    api = merchantApi(server, await server.createMerchant('Payout Address Shop'));
    for (const [asset, amount, confirmations] of [
      [{ short: 'BTC', network: 'bitcoin' }, '1', 2],
      [{ short: 'LTC', network: 'litecoin' }, '1', 3],
      [{ short: 'ETH', network: 'ethereum' }, '1', 3],
      [{ short: 'TRX', network: 'tron' }, '100', 3],
      [{ short: 'XRP', network: 'ripple' }, '100', 1],
      [{ short: 'XMR', network: 'monero' }, '1', 10],
    ] as const) {
      const payment = (await api.post('/payment', { amount, asset })).body;
      await postJson(`${server.api}/dev/transactions`, { address: payment.addressTo, destTag: payment.destTag ?? undefined, amount, asset, confirmations });
    }
  });
  after(() => server.close());

  function withdraw(short: string, network: string, addressTo: string, extra: Record<string, unknown> = {}) {
    const amount = network === 'tron' || network === 'ripple' ? '2' : '0.01';
    return api.post('/withdrawal', { amount, asset: { short, network }, addressTo, invoice: `addr-${++invoice}`, ...extra });
  }

  function invalidAddress(network: string) {
    return {
      error: {
        code: 'validation-failed',
        message: 'The request has invalid fields: addressTo.',
        details: [{ path: 'addressTo', message: `is not a valid ${network} address (checksum included)` }],
      },
    };
  }

  test('accepts every valid address form of each network', async () => {
    const litecoinKey = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true);
    const litecoin = bech32.encode('ltc', [0, ...bech32.toWords(hash160(litecoinKey))]);
    for (const [short, network, address, extra] of [
      ['BTC', 'bitcoin', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', {}],
      ['BTC', 'bitcoin', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', {}],
      ['BTC', 'bitcoin', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', {}],
      ['BTC', 'bitcoin', 'bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297', {}],
      ['LTC', 'litecoin', litecoin, {}],
      ['ETH', 'ethereum', '0x52908400098527886E0F7030069857D2E4169EE7', {}],
      ['ETH', 'ethereum', '0x52908400098527886e0f7030069857d2e4169ee7', {}],
      ['TRX', 'tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', {}],
      ['XRP', 'ripple', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', { destTag: '0' }],
      ['XMR', 'monero', '44AFFq5kSiGBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGQBEP3A', {}],
      ['XMR', 'monero', '8Bm4F2QC7GS6dwnMVCTxGo7D2qAeqKpSUTZcLUBHrih9gfgGxobL8ue4jjmBiHLDc6At9TEUrYZNFCgqpkBYBZ8K69vECRx', {}],
    ] as const) {
      const response = await withdraw(short, network, address, extra);
      assert.equal(response.status, 200, `${network} ${address}: ${JSON.stringify(response.body)}`);
      assert.equal(response.body.addressTo, address);
    }
  });

  test("refuses a Bitcoin P2SH address ('3...', Litecoin's retired form) as a Litecoin payout address", async () => {
    const response = await withdraw('LTC', 'litecoin', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy');
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, invalidAddress('litecoin'));
  });

  test('refuses a bech32 address with one character changed', async () => {
    const response = await withdraw('BTC', 'bitcoin', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdr');
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, invalidAddress('bitcoin'));
  });

  test('refuses a mixed-case ethereum address with a wrong EIP-55 checksum', async () => {
    const response = await withdraw('ETH', 'ethereum', '0x52908400098527886E0F7030069857D2E4169Ee7');
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, invalidAddress('ethereum'));
  });

  test('refuses a Tron address with a broken checksum, and a Tron address on ethereum', async () => {
    const broken = await withdraw('TRX', 'tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u');
    assert.equal(broken.status, 400);
    assert.deepEqual(broken.body, invalidAddress('tron'));
    const elsewhere = await withdraw('ETH', 'ethereum', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
    assert.deepEqual(elsewhere.body, invalidAddress('ethereum'));
  });

  test('refuses addresses of other networks and of test networks', async () => {
    for (const [short, network, address] of [
      ['BTC', 'bitcoin', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'],
      ['BTC', 'bitcoin', '0x52908400098527886E0F7030069857D2E4169EE7'],
      ['LTC', 'litecoin', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'],
      ['TRX', 'tron', '0x52908400098527886E0F7030069857D2E4169EE7'],
      ['ETH', 'ethereum', '52908400098527886E0F7030069857D2E4169EE7'],
      ['XMR', 'monero', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'],
      // The Monero general fund's address with its last character changed: the Keccak checksum fails.
      ['XMR', 'monero', '44AFFq5kSiGBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGQBEP3B'],
    ] as const) {
      const response = await withdraw(short, network, address);
      assert.equal(response.status, 400, `${network} ${address}`);
      assert.deepEqual(response.body, invalidAddress(network));
    }
  });

  test('refuses an XRP withdrawal without a destination tag, naming the field', async () => {
    const response = await withdraw('XRP', 'ripple', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh');
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, {
      error: {
        code: 'validation-failed',
        message: 'The request has invalid fields: destTag.',
        details: [{ path: 'destTag', message: 'is required on ripple: exchanges and shared wallets route by tag' }],
      },
    });
  });

  test('refuses a broken XRP address and its missing tag in one answer', async () => {
    const response = await withdraw('XRP', 'ripple', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTa');
    assert.equal(response.status, 400);
    assert.deepEqual(response.body.error.details, [
      { path: 'addressTo', message: 'is not a valid ripple address (checksum included)' },
      { path: 'destTag', message: 'is required on ripple: exchanges and shared wallets route by tag' },
    ]);
  });
});

describe('the address pool of several instances', () => {
  let fresh: TestServer;
  before(async () => {
    fresh = await startTestServer();
  });
  after(() => fresh.close());

  test('two instances topping the same pool up at once stop when it is full, not at twice its size', async () => {
    const { uow, registry } = fresh.services;
    // As two processes on one database: pools of their own (their own counts), filling together.
    const pools = [0, 1].map(() => createAddressPool({ uow, registry, poolSize: 300, logger: silentLogger() }));
    try {
      await Promise.all(pools.map((pool) => pool.refill()));
      const sizes = await pools[0]!.sizes();
      for (const network of ['bitcoin', 'litecoin', 'ethereum', 'tron']) {
        assert.ok(sizes[network]! >= 300 && sizes[network]! <= 400, `${network}: ${sizes[network]} pooled, for a size of 300 (one batch of 100 over at most)`);
      }
    } finally {
      await Promise.all(pools.map((pool) => pool.close()));
    }
  });

});

describe('the address pool', () => {
  let server: TestServer;
  let api: Api;

  before(async () => {
    server = await startTestServer({ env: { ADDRESS_POOL_SIZE: '5' } });
    api = merchantApi(server, await server.createMerchant('Pool Shop'));
  });
  after(() => server.close());

  test('is filled per derived network by refill(), and creates claim its oldest address', async () => {
    await server.services.addressPool.refill();
    assert.deepEqual(await server.services.addressPool.sizes(), { bitcoin: 5, litecoin: 5, ethereum: 5, tron: 5, monero: 5 });
    const next = (await server.services.db.get<{ address: string; derivation_index: number }>(
      "SELECT address, derivation_index FROM addresses WHERE network = 'tron' AND payment_id IS NULL ORDER BY id LIMIT 1",
    ))!;
    const payment = (await api.post('/payment', { amount: '10', asset: { short: 'USDT', network: 'tron' } })).body;
    assert.equal(payment.addressTo, next.address);
    assert.deepEqual(await tableAddress(server, payment.id), { network: 'tron', address: next.address, dest_tag: null, derivation_index: next.derivation_index });
    assert.equal((await server.services.addressPool.sizes()).tron, 4);
  });

  test('pooled addresses are valid and derived at their index like inline ones', async () => {
    const rows = await server.services.db.all<{ address: string; derivation_index: number }>("SELECT address, derivation_index FROM addresses WHERE network = 'bitcoin'");
    assert.ok(rows.length >= 5);
    const account = HDKey.fromExtendedKey(await xpubOf(server, 'bitcoin')).deriveChild(0);
    for (const row of rows) {
      assert.equal(bech32.encode('bc', [0, ...bech32.toWords(hash160(account.deriveChild(row.derivation_index).publicKey!))]), row.address);
    }
  });

  test('keeps handing out unique valid addresses when the pool runs dry and refills', async () => {
    const addresses: string[] = [];
    for (let i = 0; i < 12; i++) addresses.push((await api.post('/payment', { amount: '1', asset: { short: 'LTC', network: 'litecoin' } })).body.addressTo);
    await server.services.addressPool.refill();
    for (let i = 0; i < 4; i++) addresses.push((await api.post('/payment', { amount: '1', asset: { short: 'LTC', network: 'litecoin' } })).body.addressTo);
    assert.equal(new Set(addresses).size, 16);
    for (const address of addresses) assert.ok(independentlyValid('litecoin', address), address);
    const indexes = await server.services.db.all<{ derivation_index: number }>("SELECT derivation_index FROM addresses WHERE network = 'litecoin'");
    assert.equal(new Set(indexes.map((r) => r.derivation_index)).size, indexes.length, 'no index derived twice');
    await server.services.addressPool.refill();
    assert.ok((await server.services.addressPool.sizes()).litecoin! >= 4, 'a refill tops a pool up once a quarter of it is gone');
  });

  test('a claim reads the pool index, however many addresses were claimed before the free ones', async () => {
    const { db } = server.services;
    const postgres = db.dialect.name === 'postgres';
    // A busy installation's history: 20,000 claimed addresses of four networks, then 20,000 free ones.
    const network = (n: string) => `CASE ${n} % 4 WHEN 0 THEN 'bitcoin' WHEN 1 THEN 'litecoin' WHEN 2 THEN 'ethereum' ELSE 'tron' END`;
    const rows = (from: number, claimed: boolean) =>
      postgres
        ? `INSERT INTO addresses (network, address, payment_id) SELECT ${network('g')}, 'Thistory' || g, ${claimed ? "'history-' || g" : 'NULL'} FROM generate_series(${from}, ${from + 19_999}) g`
        : `WITH RECURSIVE g(n) AS (SELECT ${from} UNION ALL SELECT n + 1 FROM g WHERE n < ${from + 19_999})
           INSERT INTO addresses (network, address, payment_id) SELECT ${network('n')}, 'Thistory' || n, ${claimed ? "'history-' || n" : 'NULL'} FROM g`;
    try {
      await db.run(rows(1, true));
      await db.run(rows(20_001, false));
      await db.run('ANALYZE addresses');
      if (postgres) {
        const [explained] = await db.all<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${CLAIM_POOLED.postgres}`, { paymentId: 'p', network: 'tron' });
        const plan = explained!['QUERY PLAN'][0];
        const locked = findNode(plan.Plan, (node) => node['Node Type'] === 'LockRows');
        assert.ok(locked, JSON.stringify(plan));
        assert.equal(locked.Plans?.[0]?.['Index Name'], 'addresses_pool', JSON.stringify(locked));
      } else {
        const details = (await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${CLAIM_POOLED.sqlite}`, ['p', 'tron'])).map((row) => row.detail);
        assert.ok(details.some((detail) => detail.includes('USING INDEX addresses_pool')), details.join('; '));
      }
    } finally {
      await db.run("DELETE FROM addresses WHERE address LIKE 'Thistory%'");
    }
  });

  test('recovers from a derivation worker that fails: the refill ends, and the next one fills the pool', async () => {
    const { db, addressPool } = server.services;
    await addressPool.refill();
    assert.equal((await addressPool.sizes()).bitcoin, 5);
    const xpub = await xpubOf(server, 'bitcoin');
    // An extended key the worker cannot parse: deriving throws inside the worker thread. The
    // creates take pooled addresses, and the second leaves a quarter of the pool gone, which starts a refill.
    await db.run("UPDATE hd_accounts SET xpub = 'not-an-extended-key' WHERE network = 'bitcoin'");
    let before: number;
    try {
      for (let i = 0; i < 2; i++) assert.equal((await api.post('/payment', { amount: '1', asset: { short: 'BTC', network: 'bitcoin' } })).status, 200);
      await addressPool.refill();
      before = (await addressPool.sizes()).bitcoin!;
    } finally {
      await db.run("UPDATE hd_accounts SET xpub = ? WHERE network = 'bitcoin'", [xpub]);
    }
    assert.equal(before, 3, 'the failed batch added nothing');
    await addressPool.refill();
    assert.equal((await addressPool.sizes()).bitcoin, 5);
  });
});

describe('a counter that fell behind the addresses recorded (a database restored or edited by hand)', () => {
  let server: TestServer;
  let api: Api;

  before(async () => {
    server = await startTestServer();
    api = merchantApi(server, await server.createMerchant('Restored Shop'));
  });
  after(() => server.close());

  const counter = async (network: string) => Number((await server.services.db.get<{ next_index: number | string }>('SELECT next_index FROM hd_accounts WHERE network = ?', [network]))!.next_index);
  const rowsOf = async (paymentId: string) =>
    server.services.db.all<{ address: string; dest_tag: string | null; derivation_index: number | null }>('SELECT address, dest_tag, derivation_index FROM addresses WHERE payment_id = ?', [paymentId]);

  test('an XRP payment never takes a tag recorded for another payment: it gets a fresh one, and so do the next', async () => {
    const xrp = { short: 'XRP', network: 'ripple' };
    const first = (await api.post('/payment', { amount: '1', asset: xrp })).body;
    const other = (await api.post('/payment', { amount: '1', asset: { short: 'BTC', network: 'bitcoin' } })).body;
    // Every tag this process holds in reserve, and more, is already another payment's; the counter is back at 0.
    const highest = (await counter('ripple')) + 100;
    for (let tag = 1; tag <= highest; tag++) {
      if (String(tag) === first.destTag) continue;
      await server.services.db.run('INSERT INTO addresses (network, address, dest_tag, derivation_index, payment_id) VALUES (?, ?, ?, NULL, ?)', ['ripple', first.addressTo, String(tag), other.id]);
    }
    // Rows edited by hand into what no tag can be count for nothing.
    for (const tag of ['not-a-tag', '4294967296', '12345678901']) {
      await server.services.db.run('INSERT INTO addresses (network, address, dest_tag, derivation_index, payment_id) VALUES (?, ?, ?, NULL, ?)', ['ripple', first.addressTo, tag, other.id]);
    }
    await server.services.db.run("UPDATE hd_accounts SET next_index = 0 WHERE network = 'ripple'");

    const created = [];
    for (let i = 0; i < 3; i++) {
      const { status, body } = await api.post('/payment', { amount: '1', asset: xrp });
      assert.equal(status, 200, JSON.stringify(body));
      created.push(body);
    }
    for (const payment of created) {
      assert.equal(payment.addressTo, first.addressTo);
      assert.ok(Number(payment.destTag) > highest, `tag ${payment.destTag} is past every recorded one (${highest})`);
      // Blocks of tags reserved meanwhile may come first; a row edited into no tag (4294967296) may not.
      assert.ok(Number(payment.destTag) < 1_000_000, `tag ${payment.destTag} follows the recorded tags, not a row edited into no tag`);
      assert.deepEqual(await rowsOf(payment.id), [{ address: first.addressTo, dest_tag: payment.destTag, derivation_index: null }]);
    }
    assert.equal(new Set(created.map((p) => p.destTag)).size, 3);
    assert.ok((await counter('ripple')) >= highest);
  });

  test('a payment never takes a derived address recorded for another payment: it gets the next unused index', async () => {
    const btc = { short: 'BTC', network: 'bitcoin' };
    const earlier = [];
    for (let i = 0; i < 2; i++) earlier.push((await api.post('/payment', { amount: '1', asset: btc })).body);
    const used = await counter('bitcoin');
    await server.services.db.run("UPDATE hd_accounts SET next_index = 0 WHERE network = 'bitcoin'");

    const { status, body } = await api.post('/payment', { amount: '1', asset: btc });
    assert.equal(status, 200, JSON.stringify(body));
    assert.ok(!earlier.some((p) => p.addressTo === body.addressTo), 'not an address another payment shows');
    const [row] = await rowsOf(body.id);
    assert.equal(row!.address, body.addressTo);
    assert.equal(row!.derivation_index, used, 'derived at the first index no address uses');
    assert.equal(await counter('bitcoin'), used + 1);
    for (const payment of earlier) assert.equal((await rowsOf(payment.id))[0]!.address, payment.addressTo, 'the earlier payments keep their own addresses');
  });
});
