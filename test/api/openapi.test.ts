/** GET /v2/openapi.json: an OpenAPI 3.1 document that lists every endpoint and describes what the API really answers. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { z } from 'zod';
import { CheckoutOutput } from '../../api/checkout/checkout.schema.ts';
import { PaymentOutput } from '../../api/payments/payment.schema.ts';
import { BalanceOutput, WithdrawalOutput } from '../../api/withdrawals/withdrawal.schema.ts';
import { getJson, merchantApi, postJson, startTestServer, type TestServer } from '../helpers/test-server.ts';

type Schema = Record<string, unknown>;
type Document = {
  openapi: string;
  info: { title: string; version: string };
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string; schema: Schema }>; requestBody?: { content: Record<string, { schema: Schema }> }; responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, Schema> };
};

const ETH = { short: 'ETH', network: 'ethereum' };
const ETH_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const ENDPOINTS = [
  'DELETE /webhooks/{id}',
  'GET /assets',
  'GET /balance',
  'GET /checkout/{id}',
  'GET /checkout/{id}/events',
  'GET /payment',
  'GET /payment/{id}',
  'GET /rates',
  'GET /refund',
  'GET /refund/{id}',
  'GET /reports/payments.csv',
  'GET /webhooks',
  'GET /webhooks/{id}/deliveries',
  'GET /withdrawal',
  'GET /withdrawal/{id}',
  'POST /dev/blocks',
  'POST /dev/transactions',
  'POST /dev/transactions/{txnId}/drop',
  'POST /payment',
  'POST /payment/{id}/refund',
  'POST /refund/{id}/approve',
  'POST /refund/{id}/cancel',
  'POST /webhooks',
  'POST /webhooks/{id}/deliveries/{deliveryId}/redeliver',
  'POST /withdrawal',
  'POST /withdrawal/{id}/approve',
  'POST /withdrawal/{id}/cancel',
];

let server: TestServer;
let api: ReturnType<typeof merchantApi>;
let doc: Document;

before(async () => {
  server = await startTestServer();
  api = merchantApi(server, await server.createMerchant('OpenAPI Shop'));
  const response = await getJson<Document>(`${server.api}/openapi.json`);
  assert.equal(response.status, 200);
  doc = response.body;
});
after(() => server.close());

/**
 * Checks a value against the JSON Schema subset the document uses. Strict about objects: a property
 * the schema does not document is an error, so responses cannot carry undocumented fields.
 */
function violations(value: unknown, schema: Schema, path = '$'): string[] {
  if (typeof schema.$ref === 'string') {
    const target = doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')];
    return target ? violations(value, target, path) : [`${path}: dangling $ref ${schema.$ref}`];
  }
  if (Array.isArray(schema.anyOf)) {
    return (schema.anyOf as Schema[]).some((option) => violations(value, option, path).length === 0) ? [] : [`${path}: matches no anyOf option`];
  }
  const errors: string[] = [];
  if (schema.type !== undefined) {
    const types = ([] as unknown[]).concat(schema.type);
    const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
    if (!types.includes(actual) && !(actual === 'integer' && types.includes('number'))) return [`${path}: ${JSON.stringify(value)} is not ${types.join('|')}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) errors.push(`${path}: ${JSON.stringify(value)} not in enum`);
  if (typeof value === 'string') {
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(value)) errors.push(`${path}: "${value}" does not match ${schema.pattern}`);
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) errors.push(`${path}: longer than ${schema.maxLength}`);
    if (schema.format === 'uri' && !URL.canParse(value)) errors.push(`${path}: "${value}" is not a URI`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) errors.push(`${path}: below ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) errors.push(`${path}: above ${schema.maximum}`);
  }
  if (Array.isArray(value) && schema.items) value.forEach((item, i) => errors.push(...violations(item, schema.items as Schema, `${path}[${i}]`)));
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const key of (schema.required ?? []) as string[]) if (!(key in value)) errors.push(`${path}.${key}: required but missing`);
    for (const [key, item] of Object.entries(value)) {
      if (properties[key]) errors.push(...violations(item, properties[key], `${path}.${key}`));
      else errors.push(`${path}.${key}: not documented`);
    }
  }
  return errors;
}

function responseSchema(method: string, path: string, status: number): Schema {
  const operation = doc.paths[path]?.[method];
  assert.ok(operation, `${method.toUpperCase()} ${path} is documented`);
  const response = operation.responses[String(status)];
  assert.ok(response, `${method.toUpperCase()} ${path} documents status ${status}`);
  return response.content!['application/json']!.schema;
}

/** Asserts a real response matches the documented schema of its operation and status (and, when given, the zod schema). */
function assertDocumented(method: string, path: string, response: { status: number; body: unknown }, zodSchema?: z.ZodType) {
  assert.deepEqual(violations(response.body, responseSchema(method, path, response.status)), [], `${method.toUpperCase()} ${path} ${response.status}`);
  if (zodSchema) {
    const parsed = zodSchema.safeParse(response.body);
    assert.ok(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues));
  }
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

/** Runs a tool to completion: its exit code and everything it printed. */
async function run(file: string, args: string[], cwd = ROOT): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(file, args, { cwd, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

describe('integrators\' tools on the served document', () => {
  let dir: string;
  let file: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-served-'));
    file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(doc));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('redocly lint (recommended rules, each an error) finds nothing', async () => {
    const result = await run(bin('redocly'), ['lint', file, '--format=stylish']);
    assert.equal(result.code, 0, result.output);
    assert.match(result.output, /Your API description is valid/);
  });

  test('swagger-typescript-api generates a client that type-checks, one method per operationId', async () => {
    const generated = await run(bin('swagger-typescript-api'), ['generate', '--path', file, '--output', dir, '--name', 'client.ts']);
    assert.equal(generated.code, 0, generated.output);
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'preserve', moduleResolution: 'bundler', strict: true, noEmit: true, lib: ['ES2022', 'DOM'], types: [], skipLibCheck: true }, files: ['client.ts'] }),
    );
    const checked = await run(bin('tsc'), ['-p', path.join(dir, 'tsconfig.json')]);
    assert.equal(checked.code, 0, checked.output);
    const client = fs.readFileSync(path.join(dir, 'client.ts'), 'utf8');
    // The generated client calls this service without a base URL set by hand.
    assert.ok(client.includes(`public baseUrl: string = "${server.api}";`), 'the generated client\'s default base URL is the service\'s');
    const operationIds = Object.values(doc.paths).flatMap((operations) => Object.values(operations).map((o) => (o as { operationId?: string }).operationId));
    assert.equal(new Set(operationIds).size, operationIds.length, 'operationIds are unique');
    for (const id of operationIds) assert.match(client, new RegExp(`\\b${id}: \\(`), `a ${id} method`);
  });
});

describe('the document', () => {
  test('is OpenAPI 3.1, public, with the absolute server URL from PUBLIC_URL and both security schemes', async () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '2');
    assert.deepEqual(doc.servers, [{ url: server.api, description: 'This service (PUBLIC_URL)' }]);
    assert.deepEqual(doc.components.securitySchemes.apiKey, { type: 'apiKey', in: 'header', name: 'API-KEY' });
    assert.equal(doc.components.securitySchemes.hmac!.name, 'X-HMAC');
    const response = await fetch(`${server.api}/openapi.json`, { headers: { Origin: 'https://tools.example' } });
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
  });

  test('lists every endpoint the API serves, and nothing else', () => {
    const listed = Object.entries(doc.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
    assert.deepEqual(listed.sort(), ENDPOINTS);
  });

  test('every listed endpoint is routed', async () => {
    const id = '6f1c2e8a-4b1d-4c55-9a7e-2f5a4c3b2a10';
    for (const endpoint of ENDPOINTS) {
      const [method, path] = endpoint.split(' ') as [string, string];
      const url = server.api + path.replace('{id}', id).replace('{txnId}', 'abc').replace('{deliveryId}', id);
      const response = await fetch(url, { method, ...(method === 'POST' ? { headers: { 'Content-Type': 'application/json' }, body: '{}' } : {}) });
      const body = response.headers.get('content-type')?.startsWith('application/json') ? ((await response.json()) as { error?: { message: string } }) : (await response.body?.cancel(), undefined);
      assert.doesNotMatch(body?.error?.message ?? '', /^There is no route/, endpoint);
    }
  });

  test('has no dangling references', () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    assert.ok(refs.length > 10);
    for (const ref of new Set(refs)) {
      const name = ref.slice('"$ref":"#/components/schemas/'.length, -1);
      assert.ok(doc.components.schemas[name], ref);
    }
  });

  test('documents the required fields of both create requests', () => {
    const requestSchema = (path: string) => {
      const schema = doc.paths[path]!.post!.requestBody!.content['application/json']!.schema;
      return doc.components.schemas[(schema.$ref as string).split('/').at(-1)!]!;
    };
    assert.deepEqual(requestSchema('/payment').required, ['asset']);
    assert.deepEqual(requestSchema('/payment').oneOf, [{ required: ['amount'] }, { required: ['price'] }], 'amount or price, never both');
    assert.deepEqual(requestSchema('/withdrawal').required, ['amount', 'asset', 'addressTo', 'invoice']);
    assert.equal(requestSchema('/payment').additionalProperties, false);
  });

  test('documents the list filters with each list\'s status set', () => {
    const parameters = (path: string) => Object.fromEntries(doc.paths[path]!.get!.parameters!.map((p) => [p.name, p]));
    for (const [path, statuses] of [
      ['/payment', ['OPEN', 'CONFIRMING', 'COMPLETE', 'EXPIRED']],
      ['/withdrawal', ['CANCELLED', 'OPEN', 'APPROVED', 'COMPLETE']],
    ] as const) {
      const params = parameters(path);
      assert.deepEqual(Object.keys(params).sort(), ['ids', 'invoices', 'limit', 'page', 'statuses', 'txnIds']);
      for (const p of Object.values(params)) assert.equal(p.in, 'query');
      assert.deepEqual((params.statuses!.schema.items as Schema).enum, statuses);
    }
  });
});

describe('real responses match the documented schemas', () => {
  test('a payment, from create, fetch and list, with and without transactions', async () => {
    const created = await api.post('/payment', {
      amount: '0.5',
      asset: ETH,
      customer: { id: 1, name: 'Ann', email: 'ann@example.com' },
      invoice: 'doc-1',
      checkoutUrl: 'https://shop.example/back',
    });
    assertDocumented('post', '/payment', created, PaymentOutput);
    await postJson(`${server.api}/dev/transactions`, { address: created.body.addressTo, amount: '0.5', asset: ETH, confirmations: 3 });
    const fetched = await api.get(`/payment/${created.body.id}`);
    assert.equal(fetched.body.transactions.length, 1);
    assertDocumented('get', '/payment/{id}', fetched, PaymentOutput);
    const xrp = await api.post('/payment', { amount: '1', asset: { short: 'XRP', network: 'ripple' } });
    assertDocumented('post', '/payment', xrp, PaymentOutput);
    const list = await api.get('/payment');
    assert.equal(list.body.total, 2);
    assertDocumented('get', '/payment', list);
    for (const item of list.body.data) assert.ok(PaymentOutput.safeParse(item).success);
  });

  test('a withdrawal, OPEN and APPROVED, its list and the balance', async () => {
    const open = await api.post('/withdrawal', { amount: '0.1', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'doc-w1', customer: { id: 3 } });
    assertDocumented('post', '/withdrawal', open, WithdrawalOutput);
    const approved = await api.post(`/withdrawal/${open.body.id}/approve`, {});
    assert.equal(approved.body.status, 'APPROVED');
    assertDocumented('post', '/withdrawal/{id}/approve', approved, WithdrawalOutput);
    const other = await api.post('/withdrawal', { amount: '0.1', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'doc-w2' });
    assertDocumented('post', '/withdrawal/{id}/cancel', await api.post(`/withdrawal/${other.body.id}/cancel`, {}), WithdrawalOutput);
    assertDocumented('get', '/withdrawal/{id}', await api.get(`/withdrawal/${open.body.id}`), WithdrawalOutput);
    assertDocumented('get', '/withdrawal', await api.get('/withdrawal'));
    const balance = await api.get('/balance');
    assert.equal(balance.body.data.length, 1);
    assertDocumented('get', '/balance', balance, BalanceOutput);
  });

  test('the checkout view and the served assets', async () => {
    const payment = await api.post('/payment', { amount: '1', asset: ETH, invoice: 'doc-c' });
    await postJson(`${server.api}/dev/transactions`, { address: payment.body.addressTo, amount: '0.4', asset: ETH });
    const checkout = await getJson(`${server.api}/checkout/${payment.body.id}`);
    assertDocumented('get', '/checkout/{id}', checkout, CheckoutOutput);
    const assets = await getJson(`${server.api}/assets`);
    assert.equal(assets.body.data.length, 9);
    assertDocumented('get', '/assets', assets);
  });

  test('the schema check itself refuses undocumented fields, wrong types and missing fields', async () => {
    const payment = (await api.post('/payment', { amount: '1', asset: ETH })).body;
    const schema = responseSchema('post', '/payment', 200);
    assert.deepEqual(violations({ ...payment, secret: 'x' }, schema), ['$.secret: not documented']);
    assert.deepEqual(violations({ ...payment, amount: 1 }, schema), ['$.amount: 1 is not string']);
    const { merchant: _merchant, ...withoutMerchant } = payment;
    assert.deepEqual(violations(withoutMerchant, schema), ['$.merchant: required but missing']);
  });

  test('error bodies, each under a status its operation documents', async () => {
    const cases: Array<[string, string, { status: number; body: unknown }]> = [
      ['post', '/payment', await api.post('/payment', { amount: 'x' })],
      ['post', '/payment', await postJson(`${server.api}/payment`, {})],
      ['post', '/withdrawal', await api.post('/withdrawal', { amount: '100', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'doc-big' })],
      ['post', '/withdrawal', await api.post('/withdrawal', { amount: '0.1', asset: ETH, addressTo: ETH_ADDRESS, invoice: 'doc-w1' })],
      ['get', '/payment', await api.get('/payment?limit=0')],
      ['get', '/payment/{id}', await api.get('/payment/6f1c2e8a-4b1d-4c55-9a7e-2f5a4c3b2a10')],
      ['get', '/withdrawal/{id}', await api.get('/withdrawal/6f1c2e8a-4b1d-4c55-9a7e-2f5a4c3b2a10')],
      ['post', '/withdrawal/{id}/cancel', await api.post(`/withdrawal/${(await api.get('/withdrawal?invoices=doc-w1')).body.data[0].id}/cancel`, {})],
      ['get', '/checkout/{id}', await getJson(`${server.api}/checkout/nope`)],
    ];
    assert.deepEqual(
      cases.map(([, , r]) => r.status),
      [400, 401, 422, 409, 400, 404, 404, 409, 404],
    );
    for (const [method, path, response] of cases) assertDocumented(method, path, response);
  });
});
