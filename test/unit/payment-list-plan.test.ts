/** Pages of several lists planned as one statement (api/payments/payment-list.store.ts), as text. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { postgresDialect } from '../../api/db/postgres-database.ts';
import { planPage, planPagesTogether } from '../../api/payments/payment-list.store.ts';

const postgres = postgresDialect;
const NOW = Date.parse('2026-11-27T06:00:00.000Z');

describe('pages planned together', () => {
  test("reads each page's parameters from its own object of the batch: whole numbers as bigint, texts as text", () => {
    const pages = [
      planPage(postgres, 'merchant-a', { statuses: ['COMPLETE'], invoices: ['a-1', 'a-2'] }, NOW, 0, 10),
      planPage(postgres, 'merchant-b', { statuses: ['COMPLETE'], invoices: ['b-1'] }, NOW, 10, 10),
    ];
    assert.equal(pages[0]!.text, pages[1]!.text);
    const together = planPagesTogether(pages[0]!.text, pages.map((page) => page.params))!;
    assert.deepEqual(JSON.parse(together.params.batch as string), pages.map((page) => page.params));
    assert.deepEqual(Object.keys(together.params), ['batch']);
    assert.match(together.text, /merchant_id = \(batch\.p->>'merchantId'\)/);
    assert.match(together.text, /OFFSET CAST\(batch\.p->>'offset' AS bigint\)/);
    assert.match(together.text, /CAST\(\(batch\.p->>'invoices'\) AS json\)/);
    assert.doesNotMatch(together.text, /@(?!batch)[A-Za-z]/, 'every parameter but the batch is read from it');
    // Ordered by the page, then each page newest first, as a page alone is.
    assert.match(together.text, /ORDER BY batch\.n, page\.created_at DESC, page\.id DESC\s*$/);
  });

  test('leaves pages alone when they cannot go together', () => {
    const page = planPage(postgres, 'merchant-a', { invoices: ['a-1'] }, NOW, 0, 10);
    assert.equal(planPagesTogether(page.text, []), undefined, 'no page');
    assert.equal(planPagesTogether('SELECT id FROM payments WHERE id = ? AND merchant_id = @merchantId', [{ merchantId: 'm' }]), undefined, 'positional parameters');
    assert.equal(planPagesTogether(page.text, [page.params, { ...page.params, offset: 'ten' }]), undefined, 'a number on one page, a text on another');
    assert.equal(planPagesTogether(page.text, [page.params, { ...page.params, offset: 1.5 }]), undefined, 'not a whole number');
    assert.equal(planPagesTogether(page.text, [page.params, { ...page.params, offset: null }]), undefined, 'neither');
    const { offset: _offset, ...withoutOffset } = page.params;
    assert.equal(planPagesTogether(page.text, [withoutOffset, withoutOffset]), undefined, 'a parameter the pages do not give');
    assert.equal(planPagesTogether(page.text, [page.params, { ...page.params, extra: 'x' }]), undefined, 'pages naming different parameters');
    assert.notEqual(planPagesTogether(page.text, [page.params, { ...page.params, merchantId: 'merchant-b', offset: 20 }]), undefined);
  });
});
