/**
 * @module The mail job: sends the outbox's due messages through SMTP (nodemailer), each once. A
 * message is claimed before it is sent, so two instances never send the same one; a failure (the
 * server down, a refusal) is logged and tried again later, backing off, and never reaches a request:
 * requests only write the outbox. Each message sent is logged with its id and kind.
 */
import type { Clock } from '../shared/clock.ts';
import type { Logger } from '../shared/logger.ts';
import type { UnitOfWork } from '../unit-of-work.ts';

/** Delays before each retry after a failed attempt: 30 s, 2 min, 10 min, 30 min, 1 h, then every 2 h. */
export const MAIL_RETRY_MS = [30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000];
/** Attempts before a message the server never took is given up: about three days of retries. */
export const MAX_MAIL_ATTEMPTS = 40;
/** How long one attempt holds a message before another instance may take it. */
const CLAIM_MS = 60_000;
const BATCH = 20;

/** Something that sends one message (nodemailer's transport). */
export interface MailTransport {
  sendMail(message: { from: string; to: string; subject: string; text: string; html: string; messageId?: string }): Promise<unknown>;
}

/**
 * An SMTP transport for SMTP_URL, failing fast when the server does not answer. nodemailer (39
 * modules, 650 KB of source that V8 keeps in the heap) is loaded only by a service that sends mail.
 */
export async function smtpTransport(smtpUrl: string): Promise<MailTransport> {
  const { default: nodemailer } = await import('nodemailer');
  return nodemailer.createTransport({ url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
}

/** Creates the mail job. */
export function createMailSender(deps: { uow: UnitOfWork; clock: Clock; logger: Logger; from: string; transport: MailTransport }) {
  const { uow, clock, logger, from, transport } = deps;
  return {
    /** Sends every message due now; returns how many went out. */
    async run(): Promise<number> {
      let sent = 0;
      for (const message of await uow.stores.mail.due(clock(), BATCH)) {
        const now = clock();
        if (!(await uow.stores.mail.claim(message.id, now, now + CLAIM_MS))) continue;
        try {
          await transport.sendMail({ from, to: message.recipient, subject: message.subject, text: message.textBody, html: message.htmlBody });
        } catch (err) {
          const reason = err instanceof Error ? err.message : String(err);
          // The server refused the recipient's address for good (a 5xx to RCPT TO whose enhanced
          // status, RFC 3463, is 5.1.x: no such mailbox, bad address; or 5.2.1: mailbox disabled),
          // or no attempt went through in three days: given up, and its bodies dropped (a refund's
          // claim link is a bearer credential). Any other refusal, even at RCPT TO (5.7.1 relay
          // denied, a sender the login may not use), is the installation's SMTP settings, which
          // the operator fixes: retried.
          const { responseCode, command, response } = err as { responseCode?: unknown; command?: unknown; response?: unknown };
          const refused =
            typeof responseCode === 'number' && responseCode >= 500 && responseCode < 600 && command === 'RCPT TO' && typeof response === 'string' && /^\d{3}[ -]5\.(?:1\.\d{1,3}|2\.1)\b/.test(response);
          if (refused || message.attempts + 1 >= MAX_MAIL_ATTEMPTS) {
            await uow.stores.mail.giveUp(message.id, reason);
            logger.warn(
              { mailId: message.id, kind: message.kind, attempt: message.attempts + 1, reason },
              refused ? 'mail refused by the mail server for its recipient; given up, not retried' : `mail not sent in ${MAX_MAIL_ATTEMPTS} attempts; given up`,
            );
            continue;
          }
          const delay = MAIL_RETRY_MS[Math.min(message.attempts, MAIL_RETRY_MS.length - 1)]!;
          await uow.stores.mail.markFailed(message.id, clock() + delay, reason);
          logger.warn({ mailId: message.id, kind: message.kind, attempt: message.attempts + 1, retryInMs: delay, reason }, 'mail not sent; it will be retried');
          continue;
        }
        await uow.stores.mail.markSent(message.id, clock());
        logger.info({ mailId: message.id, kind: message.kind }, 'mail sent');
        sent++;
      }
      return sent;
    },
  };
}

/** The mail job. */
export type MailSender = ReturnType<typeof createMailSender>;
