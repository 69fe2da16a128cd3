import { pino, type Logger } from 'pino';

/** The service's structured logger (JSON lines on stdout). */
export type { Logger };

/** Creates the logger at the configured level, writing to stdout (or another file descriptor: the CLI's go to stderr). */
export function createLogger(level: string, fd: 1 | 2 = 1): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination(fd));
}

/** A logger that discards everything, for tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
