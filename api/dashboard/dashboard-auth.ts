/**
 * @module The dashboard's guards. `signedIn`: a live session cookie, whose user's merchant becomes
 * the merchant every use case is asked for (so another merchant's ids are 404s, as on the API),
 * marked used unless the page read by itself (`X-Live-Read: 1`); `following`: the same, never
 * marked used (the event stream). `change`: a state-changing request also needs the session's CSRF
 * token in `X-CSRF-Token` and, when the browser sends `Origin`, the service's own origin (403
 * otherwise, before anything is read or changed); and an owner, not a viewer (403 whatever the
 * browser sends).
 */
import type { Request, RequestHandler, Response } from 'express';
import { timingSafeEqual } from 'node:crypto';
import type { Merchant } from '../merchants/merchant.store.ts';
import type { MerchantService } from '../merchants/merchant.service.ts';
import { Forbidden, Unauthenticated } from '../shared/errors.ts';
import type { SessionRecord } from './session.store.ts';
import type { Sessions } from './sessions.ts';

/** The session cookie's name. */
export const SESSION_COOKIE = 'dashboard_session';

declare global {
  namespace Express {
    interface Locals {
      /** The dashboard session of the request (signed-in routes). */
      session: SessionRecord;
      /** Its cookie's token. */
      sessionToken: string;
    }
  }
}

/** A cookie's value from the request, if sent. */
export function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The Set-Cookie value of a session: HttpOnly, SameSite=Strict, only under /dashboard, Secure exactly on https. */
export function sessionCookie(token: string, publicUrl: string): string {
  return `${SESSION_COOKIE}=${token}; Path=/dashboard; HttpOnly; SameSite=Strict${publicUrl.startsWith('https://') ? '; Secure' : ''}`;
}

/** A Set-Cookie value that removes the session cookie. */
export function clearedSessionCookie(publicUrl: string): string {
  return `${SESSION_COOKIE}=; Path=/dashboard; Max-Age=0; HttpOnly; SameSite=Strict${publicUrl.startsWith('https://') ? '; Secure' : ''}`;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Sent (`1`) with the reads the dashboard makes by itself to follow live changes, not at the user's
 * hand: they do not count as use, so a tab left open still ends its session after 12 hours idle.
 */
export const LIVE_READ_HEADER = 'X-Live-Read';

const notSignedIn = () => new Unauthenticated('not-signed-in', 'Sign in to the dashboard first (your session may have ended after 12 hours idle, or on sign-out).');
const csrfRefused = (why: string, remedy = 'Reload the dashboard and try again.') => new Forbidden('csrf-refused', `This change was refused: ${why}. ${remedy}`);

/**
 * Refuses a request whose `Origin` is sent and is not the service's own. The answer names the
 * address to use: the operator who opened the dashboard at another name of this server (127.0.0.1
 * for localhost) is refused on every try, and a reload there cannot help.
 */
export function sameOriginOnly(publicUrl: string): RequestHandler {
  const own = new URL(publicUrl).origin;
  const why = "it came from a page at another address than this service's PUBLIC_URL";
  const remedy = `The dashboard must be opened at ${own}/dashboard; open it there and try again.`;
  return (req, _res, next) => {
    const origin = req.get('Origin');
    next(origin !== undefined && origin !== own ? csrfRefused(why, remedy) : undefined);
  };
}

/** The dashboard's guards over the sessions and the merchants. */
export function createDashboardAuth(deps: { sessions: Sessions; merchants: MerchantService; publicUrl: string }) {
  const { sessions, merchants, publicUrl } = deps;

  // `used`: whether the request counts as use of the session (keeps it from going idle).
  const signedInWhen = (used: (req: Request) => boolean): RequestHandler => async (req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    const token = cookieOf(req, SESSION_COOKIE);
    const session = token ? await (used(req) ? sessions.resolve(token) : sessions.peek(token)) : undefined;
    const merchant: Merchant | undefined = session && (await merchants.findById(session.user.merchantId));
    if (!token || !session || !merchant) {
      next(notSignedIn());
      return;
    }
    res.locals.session = session;
    res.locals.sessionToken = token;
    res.locals.merchant = merchant;
    next();
  };
  // A read the page makes by itself says so: it keeps nothing alive (see LIVE_READ_HEADER).
  const signedIn = signedInWhen((req) => req.get(LIVE_READ_HEADER) !== '1');

  const csrf: RequestHandler = (req, res: Response, next) => {
    const sent = req.get('X-CSRF-Token');
    next(sent && sameText(sent, res.locals.session.csrfToken) ? undefined : csrfRefused('the CSRF token is missing or wrong'));
  };

  const owner: RequestHandler = (_req, res, next) => {
    next(res.locals.session.user.role === 'owner' ? undefined : new Forbidden('forbidden', 'Viewers can read the dashboard but not change anything; ask an owner.'));
  };

  return {
    /** A live session (every dashboard API route). */
    signedIn: [signedIn] as RequestHandler[],
    /**
     * A live session, not marked used: the event stream, which the page opens and reopens by itself
     * (after a dropped connection) and which cannot send LIVE_READ_HEADER.
     */
    following: [signedInWhen(() => false)] as RequestHandler[],
    /** A change: a live session, the site's own origin, the session's CSRF token, and an owner. */
    change: [signedIn, sameOriginOnly(publicUrl), csrf, owner] as RequestHandler[],
    /** As `change`, but any role may (signing out). */
    anyRoleChange: [signedIn, sameOriginOnly(publicUrl), csrf] as RequestHandler[],
  };
}

/** The dashboard's guards. */
export type DashboardAuth = ReturnType<typeof createDashboardAuth>;
