/**
 * Sending the payments report: `GET /v2/reports/payments.csv?from=&to=` (API key), and the same
 * answer for the dashboard's export button. Streamed a batch at a time, waiting for the client to
 * take each (backpressure); a client that leaves stops the reading.
 */
import type { Request, RequestHandler, Response } from 'express';
import { Router } from 'express';
import { once } from 'node:events';
import { readListQuery } from '../http/list-query.ts';
import { parseOrThrow } from '../shared/validation.ts';
import type { MerchantAuth } from '../merchants/merchant-auth.ts';
import type { PaymentExport } from './payment-export.ts';
import { ExportPaymentsQuery } from './payment.schema.ts';

// The offset an ISO time is written with, in minutes east of UTC (Z is 0).
function offsetMinutes(time: string): number {
  const offset = /([+-])(\d{2}):(\d{2})$/.exec(time);
  return offset ? (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3])) : 0;
}

/**
 * The report's file name: the days it covers as the client wrote them, in the client's offset: the
 * day of `from` to the day of the last instant before `to` (a range to the next midnight, as the
 * dashboard sends a To date, ends on that date, not on the day after).
 */
export function reportFileName(from: string, to: string): string {
  const lastDay = new Date(Date.parse(to) - 1 + offsetMinutes(to) * 60_000).toISOString().slice(0, 10);
  return `payments-${from.slice(0, 10)}-${lastDay}.csv`;
}

/** Streams the report for the request's merchant (`res.locals.merchant`), checked range and all. */
export async function sendPaymentsCsv(exporter: PaymentExport, req: Request, res: Response): Promise<void> {
  const query = parseOrThrow(ExportPaymentsQuery, readListQuery(req.originalUrl, [], ['from', 'to'], []));
  const range = exporter.checkRange({ from: Date.parse(query.from), to: Date.parse(query.to) });
  const rows = exporter.csv(res.locals.merchant, range);
  // The first chunk (the header) is read before the status is sent: a failure up to here is a clean error answer.
  const first = await rows.next();
  res.status(200);
  res.setHeader('Content-Type', 'text/csv; charset=utf-8; header=present');
  res.setHeader('Content-Disposition', `attachment; filename="${reportFileName(query.from, query.to)}"`);
  res.setHeader('Cache-Control', 'no-store');
  let closed = false;
  res.once('close', () => (closed = true));
  if (!first.done) res.write(first.value);
  for await (const chunk of rows) {
    if (closed) break;
    if (!res.write(chunk)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
  }
  res.end();
}

/** GET /payments.csv, mounted at /v2/reports. */
export function reportRoutes(exporter: PaymentExport, auth: MerchantAuth): Router {
  const router = Router();
  const send: RequestHandler = (req, res) => sendPaymentsCsv(exporter, req, res);
  router.get('/payments.csv', ...auth.apiKey, send);
  return router;
}
