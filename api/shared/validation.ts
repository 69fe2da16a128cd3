/** The zod glue every request reader uses: plain-worded field errors, text and URL fields that refuse control characters. */
import { z } from 'zod';
import { type FieldError, invalidFields } from './errors.ts';

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
};

function joinPath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/** Turns zod's issues into the contract's `details`, one entry per bad field, in plain words. */
export function toFieldErrors(error: z.ZodError): FieldError[] {
  const details: FieldError[] = [];
  for (const issue of error.issues) {
    const path = joinPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        details.push({ path: path ? `${path}.${key}` : key, message: 'is not a field of this request (names are case-sensitive)' });
      }
    } else if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined')) {
      details.push({ path, message: 'is required' });
    } else if (issue.code === 'invalid_type' && issue.message.startsWith('Invalid input:')) {
      const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
      details.push({ path, message: path ? `must be ${expected}` : `the body must be ${expected}` });
    } else {
      details.push({ path, message: issue.message });
    }
  }
  return details;
}

/**
 * A request body's fields as sent, for checks beside the schema's (whatever the schema made of
 * them): an object's own entries, none for anything else.
 */
export function fieldsOf(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
}

/** Parses input with a schema, or throws a 400 validation-failed listing every bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw invalidFields(toFieldErrors(result.error));
  return result.data;
}

/** Parses input with a schema, returning the data or the field errors (for callers that add their own). */
export function parseCollecting<S extends z.ZodType>(
  schema: S,
  input: unknown,
): { data: z.output<S>; errors: [] } | { data: undefined; errors: FieldError[] } {
  const result = schema.safeParse(input);
  return result.success ? { data: result.data, errors: [] } : { data: undefined, errors: toFieldErrors(result.error) };
}

// C0 (with NUL), DEL, C1, and the line and paragraph separators. No request field takes any of
// them (CONTRACT.md has no multi-line field): PostgreSQL cannot store NUL at all, and the rest
// would reach logs, webhook consumers and the payer's page as hidden text or terminal commands.
// oxlint-disable-next-line no-control-regex -- matching control characters is this pattern's purpose
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// Without the u flag the pattern sees UTF-16 code units, so it finds halves of a surrogate pair
// standing alone: JSON can carry them ("\ud800"), but UTF-8 cannot, so SQLite would store U+FFFD.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const WELL_FORMED_MESSAGE = 'must be valid Unicode text (it has half of a surrogate pair)';

/**
 * A string of a request (body, query or CLI input): no control characters, storable as UTF-8, the
 * same on both stores. Every string field of a request schema starts here.
 */
export function plainString() {
  return z
    .string()
    .refine((s) => !CONTROL_CHARACTERS.test(s), 'must not contain control characters')
    .refine((s) => !LONE_SURROGATE.test(s), WELL_FORMED_MESSAGE);
}

/** A free-text string: trimmed length 1..max, no control characters, storable as UTF-8. */
export function text(max: number) {
  return plainString()
    .max(max, `must be at most ${max} characters`)
    .refine((s) => s.trim().length > 0, 'must not be empty');
}

/** An absolute http or https URL. */
export function httpUrl(max = 2000) {
  return plainString()
    .max(max, `must be at most ${max} characters`)
    .refine((s) => {
      try {
        const url = new URL(s);
        return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
      } catch {
        return false;
      }
    }, 'must be an absolute http:// or https:// URL')
    .meta({ format: 'uri' });
}
