/** A real SMTP server on loopback (the smtp-server package) that keeps every message it accepts. */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message as the server received it. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** The whole message as sent (headers and MIME parts). */
  raw: string;
}

/** A running receiver. */
export interface SmtpReceiver {
  port: number;
  received: ReceivedMail[];
  /** Recipients refused at RCPT TO, each with its reply (code and text, as `[550, '5.1.1 No such user here']`). */
  refuse: Map<string, [number, string]>;
  /** Stops accepting connections (the port is free again); `start` listens on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** Starts a receiver on a free loopback port (or on `port`). */
export async function startSmtpReceiver(port = 0): Promise<SmtpReceiver> {
  const received: ReceivedMail[] = [];
  const refuse = new Map<string, [number, string]>();
  let server: SMTPServer | undefined;
  let bound = port;
  const listen = async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo(address, _session, callback) {
        const reply = refuse.get(address.address);
        if (!reply) return callback();
        callback(Object.assign(new Error(reply[1]), { responseCode: reply[0] }));
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server!.listen(bound, '127.0.0.1', resolve));
    bound = (server.server.address() as AddressInfo).port;
  };
  await listen();
  return {
    get port() {
      return bound;
    },
    received,
    refuse,
    stop: () => new Promise<void>((resolve) => server!.close(() => resolve())),
    start: listen,
  };
}

/** The decoded text of a message's part of a MIME type (quoted-printable or base64). */
export function partOf(raw: string, type: string): string | undefined {
  const at = raw.toLowerCase().indexOf(`content-type: ${type}`);
  if (at === -1) return undefined;
  const rest = raw.slice(at);
  const headerEnd = rest.indexOf('\r\n\r\n');
  const headers = rest.slice(0, headerEnd).toLowerCase();
  const bodyEnd = rest.indexOf('\r\n--', headerEnd);
  const body = rest.slice(headerEnd + 4, bodyEnd === -1 ? undefined : bodyEnd);
  if (headers.includes('content-transfer-encoding: base64')) return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (headers.includes('content-transfer-encoding: quoted-printable')) {
    const bytes = body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}
