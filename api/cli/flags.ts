/** Reading an operator's flags with the same schemas the API reads request bodies with. */
import type { z } from 'zod';
import type { FieldError } from '../shared/errors.ts';
import { parseCollecting } from '../shared/validation.ts';

/**
 * The flags as the schema's typed input, or undefined after printing each problem under the name of
 * the flag that carries the field (`flagOf`: field name → flag).
 */
export function parseFlags<S extends z.ZodType>(schema: S, input: Record<string, unknown>, flagOf: Record<string, string>, err: (text: string) => void): z.output<S> | undefined {
  const { data, errors } = parseCollecting(schema, input);
  if (errors.length === 0) return data;
  printFieldErrors(errors, flagOf, err);
  return undefined;
}

/** Prints each field error under the name of the flag that carries the field. */
export function printFieldErrors(errors: readonly FieldError[], flagOf: Record<string, string>, err: (text: string) => void): void {
  err(errors.map((e) => `${flagOf[e.path.split('.')[0]!] ?? e.path} ${e.message}`).join('\n') + '\n');
}
