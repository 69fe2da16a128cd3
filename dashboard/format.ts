/** Small text helpers the pages share. */

/** A time in the browser's locale (UTC ISO in, local text out). */
export function timeText(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '';
}

/** Reads a form's fields as strings. */
export function formFields(event: Event): Record<string, string> {
  event.preventDefault();
  const form = event.target as HTMLFormElement;
  return Object.fromEntries([...new FormData(form).entries()].map(([k, v]) => [k, String(v)]));
}
