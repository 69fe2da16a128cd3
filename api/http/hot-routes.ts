/**
 * @module The hot routes, the GETs that are polled (a payer's page watching its payment, a
 * merchant's backend polling one or a list) and the create, dispatched straight to their handlers
 * before Express's router is entered: the same handler chains the router runs for those paths,
 * found by one prefix or path test instead of a path match per layer and mounted router. Only the
 * plain form is taken here, `<prefix><id>` with an id of letters, digits and hyphens (or the exact
 * path of a list) and any query string; anything else (HEAD, an encoded or trailing-slash path,
 * other letter case, a longer path) goes on to the router as before, which answers it exactly as it
 * always has.
 */
import type { ErrorRequestHandler, Express, Request, RequestHandler, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';

/**
 * A hot route and its handler chain, as the router would run it: a GET at `prefix` followed by an
 * id (`req.params.id`), or a request of `method` (GET unless said) at exactly `path`.
 */
export type HotRoute = { prefix: string; handler: RequestHandler } | { path: string; method?: 'GET' | 'POST'; handler: RequestHandler };

const PLAIN_ID = /^[A-Za-z0-9-]{1,64}$/;

/** The hot route a request takes, with `req.params` set; undefined for anything the router serves. */
function hotRouteOf(routes: readonly HotRoute[], req: Request): HotRoute | undefined {
  const method = req.method;
  if (method !== 'GET' && method !== 'POST') return undefined;
  const url = req.url;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  for (const route of routes) {
    if ('path' in route) {
      if (path !== route.path || method !== (route.method ?? 'GET')) continue;
      req.params = {};
    } else {
      if (method !== 'GET' || !path.startsWith(route.prefix)) continue;
      const id = path.slice(route.prefix.length);
      if (!PLAIN_ID.test(id)) return undefined;
      req.params = { id };
    }
    return route;
  }
  return undefined;
}

// What Node's event emitter counts listeners in (an incoming request inherits its first 0), where
// parseurl (Express's and its router's URL parser) keeps a request's parsed URL, and where the
// router records the route it matched.
type LaterProperties = { _eventsCount: number; _parsedUrl?: unknown } & Record<symbol, unknown>;

// The router's key for the matched route is a symbol of its own, read from the copy Express
// loads. Should a later version keep it elsewhere, routed requests lose only their shared shape
// (hot-routes.test.ts checks that they keep one).
const MATCHED_ROUTE = ((): symbol | undefined => {
  try {
    const fromExpress = createRequire(createRequire(import.meta.url).resolve('express'));
    const key: unknown = (fromExpress('router/lib/symbols.js') as { matchedRoute?: unknown }).matchedRoute;
    return typeof key === 'symbol' ? key : undefined;
  } catch {
    return undefined;
  }
})();

// Where the router records the errors a request passed on (a registered symbol, so every copy of
// the router shares it): set on the first `next(error)`, which refuses a routed request.
const PUBLISHED_ERRORS = Symbol.for('router.tracing.publishedErrors');

/**
 * Gives the request and the response the own properties Express, its router, Node and our chains
 * add to them while a request is answered, before anything changes their prototypes: Express's own
 * entry does, and so does a hot route. V8 adds a property to an object whose prototype was just
 * changed on a slow path, and gives the object a shape of its own: no two requests then share one,
 * and every later property access on them misses its caches (Node 20: the hot chains' properties
 * cost 8.6 µs a request set after the change, 1.1 before; a read of a payment 145 → 101 µs of CPU;
 * routed, a merchant's balance 322 → 217, measured before the router's symbol, `_eventsCount` and
 * the status were added here). Each gets the value it would be read as anyway: `body` is where the
 * JSON routes put the body they read; the router sets `next`, `params`, `route` and its matched
 * route, parseurl `_parsedUrl`, Node's event emitter `_eventsCount` on the first listener, and
 * Node's response its status on the head, and the router its record of the errors a refused
 * request passed on. Still added later, and left so: `res.send` (replaced by the idempotency
 * middleware on a request with an Idempotency-Key) and what only Express's final handler and its
 * file answers add (`_parsedOriginalUrl`, on-finished's listener), which no route of ours reaches:
 * the app answers every unknown path itself and serves its files from memory.
 */
function ownPropertiesFirst(req: Request, res: Response): void {
  req.res = res;
  res.req = req;
  res.locals ??= Object.create(null) as Response['locals'];
  // Node's defaults (inherited until the head is written): nothing has answered yet.
  res.statusCode = 200;
  (res as { statusMessage?: string }).statusMessage = undefined;
  req.originalUrl ??= req.url;
  req.baseUrl = '';
  req.body = undefined;
  req.next = undefined;
  req.params ??= {};
  req.route = undefined;
  const later = req as unknown as LaterProperties;
  later._parsedUrl = undefined;
  if (!Object.hasOwn(later, '_eventsCount')) later._eventsCount = 0;
  if (MATCHED_ROUTE) later[MATCHED_ROUTE] = undefined;
  later[PUBLISHED_ERRORS] = undefined;
}

/**
 * Makes `app` take the plain forms of these routes before its router runs at all: the request gets
 * what Express gives every request (its request and response prototypes, `res.locals`,
 * `originalUrl`) and goes straight to the route's handler chain; an error it passes on goes to
 * `onError`, the app's last error handler. Everything else goes to the router as before. The
 * router's own entry (its URL parsing, layer walk and restore of the request's fields) cost about
 * 40 µs a create and a tenth of a read, profiled.
 */
export function takeHotRoutesFirst(app: Express, routes: readonly HotRoute[], onError: ErrorRequestHandler): void {
  // `handle` is where Express takes a request in (the app itself is `(req, res, next) => app.handle(req, res, next)`).
  const entry = app as unknown as { handle(req: IncomingMessage, res: ServerResponse, callback?: (error?: unknown) => void): void };
  const viaRouter = entry.handle.bind(app);
  entry.handle = (incoming, outgoing, callback) => {
    const req = incoming as Request;
    const res = outgoing as Response;
    const route = hotRouteOf(routes, req);
    ownPropertiesFirst(req, res);
    if (!route) {
      viaRouter(req, res, callback);
      return;
    }
    Object.setPrototypeOf(req, app.request);
    Object.setPrototypeOf(res, app.response);
    route.handler(req, res, (error?: unknown) => {
      // A chain that declines ('route', or no error: undefined, null, false, as the router reads
      // them) is the router's to serve; so is 'router', which no hot route passes.
      if (!error || error === 'route' || error === 'router') {
        viaRouter(req, res, callback);
        return;
      }
      // The error handler passes on only an error it cannot answer (the answer was begun): the
      // connection is closed, as Express's final handler does.
      void onError(error, req, res, () => req.socket.destroy());
    });
  };
}
