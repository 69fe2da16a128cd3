/**
 * The dashboard's sign-in, session and sign-out, mounted at /dashboard/api/session:
 * POST signs in (JSON e-mail and password) and sets the session cookie; GET says who is signed in
 * with the CSRF token; DELETE signs out, forgetting the session on the server.
 */
import { Router } from 'express';
import { jsonBody } from '../http/json-body.ts';
import { parseOrThrow } from '../shared/validation.ts';
import type { Merchant } from '../merchants/merchant.store.ts';
import type { MerchantService } from '../merchants/merchant.service.ts';
import type { SessionRecord } from './session.store.ts';
import { SignInInput } from '../users/user.schema.ts';
import type { UserService } from '../users/user.service.ts';
import { clearedSessionCookie, type DashboardAuth, sameOriginOnly, sessionCookie } from './dashboard-auth.ts';
import type { Sessions } from './sessions.ts';

/** Who is signed in, as the dashboard shows it: never a key or a secret. */
function sessionView(user: SessionRecord['user'], merchant: Merchant, csrfToken: string) {
  return { user: { id: user.id, email: user.email, role: user.role }, merchant: { id: merchant.id, name: merchant.name }, csrfToken };
}

/** The session routes. */
export function sessionRoutes(deps: { users: UserService; sessions: Sessions; merchants: MerchantService; auth: DashboardAuth; publicUrl: string }): Router {
  const { users, sessions, merchants, auth, publicUrl } = deps;
  const router = Router();
  router.post('/', sameOriginOnly(publicUrl), ...jsonBody, async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const user = await users.signIn(parseOrThrow(SignInInput, req.body));
    const merchant = (await merchants.findById(user.merchantId))!;
    const { token, csrfToken } = await sessions.start(user);
    res.append('Set-Cookie', sessionCookie(token, publicUrl));
    res.json(sessionView(user, merchant, csrfToken));
  });
  router.get('/', ...auth.signedIn, (_req, res) => {
    res.json(sessionView(res.locals.session.user, res.locals.merchant, res.locals.session.csrfToken));
  });
  router.delete('/', ...auth.anyRoleChange, async (_req, res) => {
    await sessions.end(res.locals.sessionToken);
    res.append('Set-Cookie', clearedSessionCookie(publicUrl));
    res.status(204).end();
  });
  return router;
}
