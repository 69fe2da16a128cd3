/**
 * @module The hot routes, the GETs that are polled (a payer's page watching its payment, a
 * merchant's backend polling one or a list) and the create, dispatched straight to their handlers,
 * ahead of Express's layer-by-layer matching:
 * the same handler chains the router runs for those paths, found by one prefix test instead of a
 * path match per layer and mounted router. Only the plain form is taken here, `<prefix><id>` with
 * an id of letters, digits and hyphens (or the exact path of a list) and any query string; anything else (HEAD, an encoded or
 * trailing-slash path, other letter case, a longer path) goes on to the router as before, which
 * answers it exactly as it always has.
 */
import type { RequestHandler } from 'express';

/**
 * A hot route and its handler chain, as the router would run it: a GET at `prefix` followed by an
 * id (`req.params.id`), or a request of `method` (GET unless said) at exactly `path`.
 */
export type HotRoute = { prefix: string; handler: RequestHandler } | { path: string; method?: 'GET' | 'POST'; handler: RequestHandler };

const PLAIN_ID = /^[A-Za-z0-9-]{1,64}$/;

/** The middleware, first in the app: takes the plain forms of these routes, passes on everything else. */
export function hotRoutes(routes: readonly HotRoute[]): RequestHandler {
  return (req, res, next) => {
    const method = req.method;
    if (method !== 'GET' && method !== 'POST') {
      next();
      return;
    }
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
        if (!PLAIN_ID.test(id)) break;
        req.params = { id };
      }
      route.handler(req, res, next);
      return;
    }
    next();
  };
}
