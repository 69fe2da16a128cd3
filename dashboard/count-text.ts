/** @module Counts in words, as the dashboard's lists say them (no DOM, so unit-tested under Node). */
/** A count with its noun in the singular for one, the plural otherwise: "1 payment", "0 payments". */
export function countOf(count: number, singular: string, plural: string): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
