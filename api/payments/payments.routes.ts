import { type RequestHandler, Router } from 'express';
import { chain } from '../http/chain.ts';
import type { MerchantAuth } from '../merchants/merchant-auth.ts';
import { readListQuery } from '../http/list-query.ts';
import { sendJsonList, sendJsonText } from '../http/send-json.ts';
import { parseOrThrow } from '../shared/validation.ts';
import type { AssetRegistry } from '../networks/asset-registry.ts';
import { parseCreatePayment } from './payment-request.ts';
import { ListPaymentsQuery } from './payment.schema.ts';
import type { PaymentService } from './payment.service.ts';

const ARRAY_FILTERS = ['txnIds', 'ids', 'invoices', 'statuses'] as const;
const SCALARS = ['page', 'limit'] as const;
// Invoices are the merchant's free text and may hold a comma, sent as %2C.
const FREE_TEXT_FILTERS = ['invoices'] as const;

/** The payment routes, and one payment's whole chain for direct dispatch (`http/hot-routes.ts`). */
export interface PaymentRoutes {
  /** POST /payment, GET /payment, GET /payment/:id. */
  router: Router;
  /** GET /payment/:id as one handler: API key, merchant limit, the record (reads `req.params.id`). */
  record: RequestHandler;
  /** GET /payment (the filtered list) as one handler. */
  list: RequestHandler;
  /** POST /payment (a create) as one handler: the signed-JSON guards, then the create. */
  create: RequestHandler;
}

/** The payment routes, mounted at /v2/payment. */
export function paymentRoutes(payments: PaymentService, registry: AssetRegistry, auth: MerchantAuth): PaymentRoutes {
  const router = Router();
  const create: RequestHandler = async (req, res) => {
    res.json(await payments.create(res.locals.merchant, parseCreatePayment(registry, req.body)));
  };
  router.post('/', ...auth.signedJson, create);
  const list: RequestHandler = async (req, res) => {
    const query = parseOrThrow(ListPaymentsQuery, readListQuery(req.originalUrl, ARRAY_FILTERS, SCALARS, FREE_TEXT_FILTERS));
    sendJsonList(res, await payments.list(res.locals.merchant, query));
  };
  router.get('/', ...auth.apiKey, list);
  const record: RequestHandler = async (req, res) => {
    sendJsonText(res, await payments.get(res.locals.merchant, req.params.id as string));
  };
  router.get('/:id', ...auth.apiKey, record);
  return { router, record: chain(...auth.apiKey, record), list: chain(...auth.apiKey, list), create: chain(...auth.signedJson, create) };
}
