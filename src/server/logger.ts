import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.ts';

export type { Logger };

/** Structured JSON logs on stdout, one object per line. */
export function createLogger(level: LogLevel): Logger {
  return pino({ level, base: { service: 'exchange' }, timestamp: pino.stdTimeFunctions.isoTime });
}
