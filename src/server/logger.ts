import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * LOG_LEVEL's values (config.ts reads it). Declared here, not in config.ts, so that the client-address
 * code the configuration uses can take a Logger without the files importing one another.
 */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

/** Structured JSON logs on stdout, one object per line. */
export function createLogger(level: LogLevel): Logger {
  return pino({ level, base: { service: 'exchange' }, timestamp: pino.stdTimeFunctions.isoTime });
}
