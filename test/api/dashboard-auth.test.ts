/**
 * The dashboard's doors: users made by the operator's CLI (scrypt hashes, passwords shown once),
 * sign-in with its cookie, the same answer for a wrong password and an unknown e-mail, the per-e-mail
 * throttle on the injected clock, idle expiry, sign-out that the server remembers, and CSRF refusals
 * that change nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { IDLE_MS } from '../../api/dashboard/sessions.ts';
import { SIGN_IN_WINDOW_MS } from '../../api/users/user.service.ts';
import { createUser, dashboardClient, operatorCli } from '../helpers/dashboard-client.ts';
import { startTestServer, type TestMerchant, type TestServer } from '../helpers/test-server.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const WRONG = { error: { code: 'invalid-credentials', message: 'The e-mail or the password is wrong.' } };
const NOT_SIGNED_IN = { error: { code: 'not-signed-in', message: 'Sign in to the dashboard first (your session may have ended after 12 hours idle, or on sign-out).' } };
const throttled = (minutes: number) => ({ error: { code: 'rate-limited', message: `Too many failed sign-ins for this e-mail; try again in ${minutes} minutes.` } });
const csrfRefused = (why: string) => ({ error: { code: 'csrf-refused', message: `This change was refused: ${why}. Reload the dashboard and try again.` } });
// The origin refusal names where the dashboard must be opened (the test server's PUBLIC_URL is its own address).
const elsewhere = (publicUrl: string) => ({
  error: {
    code: 'csrf-refused',
    message: `This change was refused: it came from a page at another address than this service's PUBLIC_URL. The dashboard must be opened at ${publicUrl}/dashboard; open it there and try again.`,
  },
});

let server: TestServer;
let shop: TestMerchant;
let owner: { email: string; password: string };

before(async () => {
  server = await startTestServer();
  shop = await server.createMerchant('Dashboard Shop');
  const created = await createUser(server, shop.merchant.id, 'Owner@Shop.example', 'owner');
  owner = { email: 'owner@shop.example', password: created.password };
});
after(() => server.close());

describe('users made by the operator', () => {
  test('user create prints the user and a generated password once; the store keeps only a scrypt hash', async () => {
    const run = await operatorCli(server, ['user', 'create', '--merchant', shop.merchant.id, '--email', 'viewer1@shop.example', '--role', 'viewer', '--json']);
    assert.equal(run.code, 0, run.stderr);
    const printed = JSON.parse(run.stdout);
    assert.deepEqual(Object.keys(printed), ['user', 'password']);
    assert.match(printed.user.id, UUID);
    assert.deepEqual(printed.user, { id: printed.user.id, merchantId: shop.merchant.id, email: 'viewer1@shop.example', role: 'viewer', createdAt: printed.user.createdAt });
    assert.match(printed.password, /^[A-Za-z2-9]{20}$/);
    const row = await server.services.db.get<{ password_hash: string }>('SELECT password_hash FROM dashboard_users WHERE id = ?', [printed.user.id]);
    assert.match(row!.password_hash, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.ok(!row!.password_hash.includes(printed.password));
  });

  test('user list shows a merchant\'s users without hashes; a second account for an e-mail is refused', async () => {
    const again = await operatorCli(server, ['user', 'create', '--merchant', shop.merchant.id, '--email', 'OWNER@shop.example', '--role', 'viewer', '--json']);
    assert.deepEqual(again, { code: 1, stdout: '', stderr: 'A dashboard user with e-mail "owner@shop.example" already exists.\n' });
    const listed = await operatorCli(server, ['user', 'list', '--merchant', shop.merchant.id, '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const { data } = JSON.parse(listed.stdout);
    assert.deepEqual(data.map((u: { email: string; role: string }) => [u.email, u.role]).slice(0, 2), [['owner@shop.example', 'owner'], ['viewer1@shop.example', 'viewer']]);
    assert.ok(data.every((u: object) => Object.keys(u).join() === 'id,merchantId,email,role,createdAt'));
  });

  test('refuses a bad role, an unknown merchant and a missing flag', async () => {
    assert.deepEqual(await operatorCli(server, ['user', 'create', '--merchant', shop.merchant.id, '--email', 'x@shop.example', '--role', 'admin']), {
      code: 2,
      stdout: '',
      stderr: '--role must be owner or viewer\n',
    });
    const unknown = '2f1c8a3e-9d4b-4c6f-8a2e-1b3c5d7e9f00';
    assert.deepEqual(await operatorCli(server, ['user', 'create', '--merchant', unknown, '--email', 'x@shop.example', '--role', 'owner']), {
      code: 1,
      stdout: '',
      stderr: `No merchant with id "${unknown}".\n`,
    });
    // Listing the users of a merchant that does not exist says so, rather than an empty list.
    assert.deepEqual(await operatorCli(server, ['user', 'list', '--merchant', unknown, '--json']), { code: 1, stdout: '', stderr: `No merchant with id "${unknown}".\n` });
    const missing = await operatorCli(server, ['user', 'delete']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^--email is required\.\n/);
  });

  test('reset-password gives a new password and ends every session; delete ends them too', async () => {
    const { password } = await createUser(server, shop.merchant.id, 'reset@shop.example', 'owner');
    const browser = dashboardClient(server);
    assert.equal((await browser.signIn('reset@shop.example', password)).status, 200);
    const reset = await operatorCli(server, ['user', 'reset-password', '--email', 'reset@shop.example', '--json']);
    assert.equal(reset.code, 0, reset.stderr);
    const { password: fresh } = JSON.parse(reset.stdout);
    assert.notEqual(fresh, password);
    assert.deepEqual((await browser.get('/session')).body, NOT_SIGNED_IN);
    assert.deepEqual((await dashboardClient(server).signIn('reset@shop.example', password)).body, WRONG);
    assert.equal((await browser.signIn('reset@shop.example', fresh)).status, 200);
    assert.deepEqual(await operatorCli(server, ['user', 'delete', '--email', 'reset@shop.example']), { code: 0, stdout: 'Dashboard user reset@shop.example deleted; their sessions ended.\n', stderr: '' });
    assert.deepEqual((await browser.get('/session')).body, NOT_SIGNED_IN);
    assert.deepEqual(await operatorCli(server, ['user', 'delete', '--email', 'reset@shop.example']), { code: 1, stdout: '', stderr: 'No dashboard user with e-mail "reset@shop.example".\n' });
  });

  test('reset-password lifts the lock of five failed sign-ins, and says so', async () => {
    await createUser(server, shop.merchant.id, 'locked@shop.example', 'owner');
    for (let i = 0; i < 5; i++) assert.deepEqual((await dashboardClient(server).signIn('locked@shop.example', 'wrong')).body, WRONG);
    assert.equal((await dashboardClient(server).signIn('locked@shop.example', 'still wrong')).status, 429);
    const reset = await operatorCli(server, ['user', 'reset-password', '--email', 'LOCKED@shop.example']);
    const shown = /^New password for locked@shop\.example \(every session of theirs ended; failed sign-ins forgotten, so it works at once\):\n {2}Password: (\S+)\n$/.exec(reset.stdout);
    assert.ok(shown && reset.code === 0 && reset.stderr === '', JSON.stringify(reset));
    assert.equal((await dashboardClient(server).signIn('locked@shop.example', shown[1]!)).status, 200);
  });
});

describe('signing in', () => {
  test('sets an HttpOnly, SameSite=Strict cookie under /dashboard and answers with no key or secret', async () => {
    const browser = dashboardClient(server);
    const response = await browser.signIn('OWNER@shop.example ', owner.password);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('set-cookie')!, /^dashboard_session=[A-Za-z0-9_-]{43}; Path=\/dashboard; HttpOnly; SameSite=Strict$/);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const { csrfToken } = response.body;
    assert.match(csrfToken, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(response.body, { user: { id: response.body.user.id, email: 'owner@shop.example', role: 'owner' }, merchant: { id: shop.merchant.id, name: 'Dashboard Shop' }, csrfToken });
    const text = JSON.stringify(response.body);
    assert.ok(!text.includes(shop.apiKey) && !text.includes(shop.secretKey));
    assert.deepEqual((await browser.get('/session')).body, response.body);
  });

  test('a wrong password and an unknown e-mail get the same 401', async () => {
    const wrong = await dashboardClient(server).signIn(owner.email, 'not-the-password');
    const unknown = await dashboardClient(server).signIn('nobody@shop.example', 'not-the-password');
    assert.deepEqual([wrong.status, wrong.body], [401, WRONG]);
    assert.deepEqual([unknown.status, unknown.body], [401, WRONG]);
    assert.equal(wrong.headers.get('set-cookie'), null);
  });

  test('five failures for an e-mail within 15 minutes: 429 for the rest of the window, known or unknown, even with the right password', async () => {
    const { password } = await createUser(server, shop.merchant.id, 'throttled@shop.example', 'owner');
    for (const email of ['throttled@shop.example', 'ghost@shop.example']) {
      for (let i = 0; i < 5; i++) assert.deepEqual((await dashboardClient(server).signIn(email, 'wrong')).body, WRONG);
      server.clock.advance(60_000);
      const refused = await dashboardClient(server).signIn(email, email.startsWith('throttled') ? password : 'wrong');
      assert.deepEqual([refused.status, refused.headers.get('retry-after'), refused.body], [429, String(14 * 60), throttled(14)]);
      server.clock.advance(SIGN_IN_WINDOW_MS - 60_000);
    }
    // The window from the first failure has ended for both.
    assert.equal((await dashboardClient(server).signIn('throttled@shop.example', password)).status, 200);
    assert.deepEqual((await dashboardClient(server).signIn('ghost@shop.example', 'wrong')).body, WRONG);
  });

  test('forty wrong passwords sent at once for one e-mail: five are checked, the rest are 429 at once', async () => {
    await createUser(server, shop.merchant.id, 'raced@shop.example', 'owner');
    const answers = await Promise.all(Array.from({ length: 40 }, () => dashboardClient(server).signIn('raced@shop.example', 'wrong')));
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [...Array(5).fill(401), ...Array(35).fill(429)]);
    server.clock.advance(SIGN_IN_WINDOW_MS);
  });

  test('sign-ins for many e-mails at once are hashed one at a time, and past a second\'s worth refused with 429', async () => {
    // Each check is scrypt: 32 MiB and tens of milliseconds. Unbounded, a burst took the service's memory from 114 to 216 MB.
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => dashboardClient(server).signIn(`burst-${i}@shop.example`, 'wrong')));
    const checked = answers.filter((a) => a.status === 401).length;
    const refused = answers.filter((a) => a.status === 429);
    assert.equal(checked + refused.length, 40);
    assert.ok(checked >= 1 + 16 && checked < 40, `checked ${checked}`);
    for (const answer of refused) {
      assert.deepEqual([answer.headers.get('retry-after'), answer.body], ['1', { error: { code: 'rate-limited', message: 'Too many sign-ins at this moment; try again in a second.' } }]);
    }
  });

  test('a sign-in refused because too many were hashing at once is not counted against the e-mail', async () => {
    // Otherwise a flood of sign-ins for other e-mails would lock a user out with the right password.
    const { password } = await createUser(server, shop.merchant.id, 'flooded@shop.example', 'owner');
    const { users } = server.services;
    const flood = Array.from({ length: 30 }, (_, i) => users.signIn({ email: `flood-${i}@shop.example`, password: 'wrong' }).catch(() => undefined));
    const refused = await Promise.all(Array.from({ length: 6 }, () => users.signIn({ email: 'flooded@shop.example', password }).then(() => 'signed in', (error: Error & { code?: string }) => error.code)));
    assert.deepEqual(refused, Array(6).fill('rate-limited'), 'the hashing queue was full');
    await Promise.all(flood);
    assert.equal((await users.signIn({ email: 'flooded@shop.example', password })).email, 'flooded@shop.example');
  });

  test('refuses a sign-in posted from another site', async () => {
    const response = await dashboardClient(server).request('POST', '/session', { body: { email: owner.email, password: owner.password }, origin: 'https://evil.example' });
    assert.deepEqual([response.status, response.body], [403, elsewhere(server.url)]);
  });

  test('a sign-in from another name of this server says the dashboard must be opened at PUBLIC_URL', async () => {
    // Opened at localhost while PUBLIC_URL names 127.0.0.1: a reload there would never help.
    const other = server.url.replace('127.0.0.1', 'localhost');
    const response = await dashboardClient(server).request('POST', '/session', { body: { email: owner.email, password: owner.password }, origin: other });
    assert.deepEqual([response.status, response.body], [403, elsewhere(server.url)]);
    assert.equal(response.headers.get('set-cookie'), null, 'no session');
  });

  test('a session is Secure exactly when PUBLIC_URL is https', async () => {
    const https = await startTestServer({ config: { publicUrl: 'https://pay.example' } });
    try {
      const merchant = await https.createMerchant();
      const { password } = await createUser(https, merchant.merchant.id, 'secure@shop.example', 'viewer');
      const response = await dashboardClient(https).request('POST', '/session', { body: { email: 'secure@shop.example', password }, origin: 'https://pay.example' });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('set-cookie')!, /^dashboard_session=[A-Za-z0-9_-]{43}; Path=\/dashboard; HttpOnly; SameSite=Strict; Secure$/);
    } finally {
      await https.close();
    }
  });
});

describe('sessions', () => {
  test('end after 12 hours idle, and not before', async () => {
    const browser = dashboardClient(server);
    assert.equal((await browser.signIn(owner.email, owner.password)).status, 200);
    server.clock.advance(IDLE_MS - 1);
    assert.equal((await browser.get('/session')).status, 200);
    server.clock.advance(IDLE_MS - 1);
    assert.equal((await browser.get('/session')).status, 200, 'a request keeps the session alive');
    server.clock.advance(IDLE_MS);
    assert.deepEqual([(await browser.get('/session')).status, (await browser.get('/session')).body], [401, NOT_SIGNED_IN]);
  });

  test('a live read (X-Live-Read: 1) and the event stream, the page following changes by itself, answer but keep nothing alive', async () => {
    const browser = dashboardClient(server);
    assert.equal((await browser.signIn(owner.email, owner.password)).status, 200);
    const live = { headers: { 'X-Live-Read': '1' } };
    server.clock.advance(IDLE_MS - 1);
    for (const path of ['/session', '/payments', '/withdrawals', '/refunds', '/balance']) assert.equal((await browser.request('GET', path, live)).status, 200, path);
    // The event stream, opened (or opened again after a dropped connection) by the page itself.
    const stream = new AbortController();
    const opened = await fetch(`${server.url}/dashboard/api/events`, { headers: { Cookie: browser.cookie()! }, signal: stream.signal });
    assert.equal(opened.status, 200);
    stream.abort();
    await opened.body?.cancel().catch(() => undefined);
    server.clock.advance(1);
    assert.deepEqual((await browser.request('GET', '/payments', live)).body, NOT_SIGNED_IN, 'idle since sign-in, live reads and the stream or not');
    assert.equal((await browser.get('/session')).status, 401);
    // Any other value is a read at the user's hand, as before.
    const other = dashboardClient(server);
    await other.signIn(owner.email, owner.password);
    server.clock.advance(IDLE_MS - 1);
    assert.equal((await other.request('GET', '/payments', { headers: { 'X-Live-Read': '0' } })).status, 200);
    server.clock.advance(IDLE_MS - 1);
    assert.equal((await other.get('/session')).status, 200, 'a read at the user\'s hand keeps the session alive');
  });

  test('sign-out forgets the session on the server: the old cookie no longer works', async () => {
    const browser = dashboardClient(server);
    await browser.signIn(owner.email, owner.password);
    const copied = browser.cookie();
    const out = await browser.request('DELETE', '/session');
    assert.equal(out.status, 204);
    assert.equal(out.headers.get('set-cookie'), 'dashboard_session=; Path=/dashboard; Max-Age=0; HttpOnly; SameSite=Strict');
    browser.useCookie(copied);
    assert.deepEqual((await browser.get('/session')).body, NOT_SIGNED_IN);
  });

  test('a change without the CSRF token, with a wrong one, or from another origin is 403 and changes nothing', async () => {
    const browser = dashboardClient(server);
    await browser.signIn(owner.email, owner.password);
    const missing = await browser.request('DELETE', '/session', { csrf: null });
    const wrong = await browser.request('DELETE', '/session', { csrf: 'x'.repeat(43) });
    const foreign = await browser.request('DELETE', '/session', { origin: 'http://evil.example' });
    assert.deepEqual([missing.status, missing.body], [403, csrfRefused('the CSRF token is missing or wrong')]);
    assert.deepEqual([wrong.status, wrong.body], [403, csrfRefused('the CSRF token is missing or wrong')]);
    assert.deepEqual([foreign.status, foreign.body], [403, elsewhere(server.url)]);
    assert.equal((await browser.get('/session')).status, 200, 'still signed in');
  });

  test('another session\'s CSRF token does not pass', async () => {
    const first = dashboardClient(server);
    const second = dashboardClient(server);
    await first.signIn(owner.email, owner.password);
    await second.signIn(owner.email, owner.password);
    const crossed = await first.request('DELETE', '/session', { csrf: second.csrf()! });
    assert.deepEqual([crossed.status, crossed.body], [403, csrfRefused('the CSRF token is missing or wrong')]);
  });
});
