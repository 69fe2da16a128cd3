/** A page of a list, as every list use case returns it (GET /v2/payment, /v2/withdrawal, webhook deliveries). */
export interface ListEnvelope<T> {
  data: T[];
  page: number;
  limit: number;
  total: number;
}

/** The default number of records per page. */
export const DEFAULT_LIMIT = 20;

/** The most records a page holds. */
export const MAX_LIMIT = 100;
