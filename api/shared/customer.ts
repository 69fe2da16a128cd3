/** The merchant's customer, as sent in requests and echoed in responses. */
export interface Customer {
  id?: number;
  name?: string;
  email?: string;
}

/** The customer columns a record row stores. */
export interface CustomerColumns {
  customer_id: number | null;
  customer_name: string | null;
  customer_email: string | null;
}

/** The customer a record keeps: `{}` and null both mean none, so a create answers what a fetch will. */
export function customerOrNull(customer: Customer | null | undefined): Customer | null {
  return customer && Object.keys(customer).length > 0 ? customer : null;
}

/** Splits a customer into its columns. */
export function customerColumns(customer: Customer | null | undefined): { customerId: number | null; customerName: string | null; customerEmail: string | null } {
  return { customerId: customer?.id ?? null, customerName: customer?.name ?? null, customerEmail: customer?.email ?? null };
}

/** Rebuilds the customer from its columns; null when none was given. */
export function customerFromColumns(row: CustomerColumns): Customer | null {
  if (row.customer_id === null && row.customer_name === null && row.customer_email === null) return null;
  return {
    ...(row.customer_id !== null ? { id: row.customer_id } : {}),
    ...(row.customer_name !== null ? { name: row.customer_name } : {}),
    ...(row.customer_email !== null ? { email: row.customer_email } : {}),
  };
}
