/** A JSON document serialised once (a rendered record, a list of them) and sent as is. */
export type JsonText = string & { readonly __jsonText: true };

/** Serialises a value as JSON text. */
export function toJsonText(value: unknown): JsonText {
  return JSON.stringify(value) as JsonText;
}
