import { pino, type Logger } from 'pino';

/** The service's structured logger (JSON lines on stdout). */
export type { Logger };

/** Creates the logger at the configured level. */
export function createLogger(level: string): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime });
}

/** A logger that discards everything, for tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
