/**
 * @module What Node reports about a client's connection (a deadline passed, headers too large, a
 * malformed request) answered as Node answers it, except on a socket whose request was already
 * answered before its body arrived: there the deadline closes the socket without a second answer.
 */
import type http from 'node:http';
import type { Socket } from 'node:net';

const answeredEarly = new WeakSet<Socket>();

/**
 * Marks the socket of a request answered (a wrong key, a body too large) while its body still came,
 * until that body ends: a later request on the same connection is answered as usual.
 */
export function markAnsweredEarly(req: http.IncomingMessage): void {
  const { socket } = req;
  answeredEarly.add(socket);
  req.once('end', () => answeredEarly.delete(socket));
}

// Node's own answers to the errors it reports.
const ANSWERS: Record<string, string> = {
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
};

/** Answers the server's client errors; returns the server. */
export function answerClientErrors(server: http.Server): http.Server {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket & { _httpMessage?: (http.ServerResponse & { _headerSent?: boolean }) | null }) => {
    // As Node does: an answer only where none of the response in flight reached the socket yet.
    const inFlight = socket._httpMessage;
    if (!answeredEarly.has(socket) && socket.writable && (!inFlight || !inFlight._headerSent)) {
      socket.write(`HTTP/1.1 ${ANSWERS[err.code ?? ''] ?? '400 Bad Request'}\r\nConnection: close\r\n\r\n`);
    }
    socket.destroy();
  });
  return server;
}
