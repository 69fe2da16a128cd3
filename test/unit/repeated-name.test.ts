/** A JSON body's name given twice in one object, which JSON.parse would otherwise keep the last of. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { repeatedName } from '../../api/http/json-body.ts';

const check = (text: string) => repeatedName(text, JSON.parse(text));

test('finds the first name an object repeats, at any depth, in any spelling JSON reads alike', () => {
  assert.equal(check('{"a":1,"b":2,"a":3}'), 'a');
  assert.equal(check('{"list":[{"x":1},{"y":2,"y":3}]}'), 'y');
  assert.equal(check('[{"k":1,"k":1}]'), 'k');
  assert.equal(check('{"\\u0041":1, "A" : 2}'), 'A');
  assert.equal(check('{"__proto__":1,"__proto__":2}'), '__proto__');
  assert.equal(check('{"":1,"":2}'), '');
});

test('finds none where no object repeats a name', () => {
  for (const text of ['{}', '[]', '"a:b"', '12', 'null', '{"a":{"a":{"a":1}}}', '[{"a":1},{"a":2}]', '{"s":"x:\\"y\\":{\\"s\\":1}\\\\","t":":"}', '{"__proto__":{"a":1},"a":2}']) {
    assert.equal(check(text), undefined, text);
  }
});

test('reads a body nested thousands deep without running out of stack', () => {
  const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
  assert.equal(check(deep), undefined);
  assert.equal(check(`${'[{"a":'.repeat(20_000)}{"b":1,"b":2}${'}]'.repeat(20_000)}`), 'b');
});
