import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * LOG_LEVEL's values (config.ts reads it). Declared here, not in config.ts, so that the client-address
 * code the configuration uses can take a Logger without the files importing one another.
 */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

/**
 * Structured JSON logs, one object per line, on stdout; on stderr for a process whose stdout says
 * something else (a practice exchange prints its ready line and report there).
 */
export function createLogger(level: LogLevel, to: 'stdout' | 'stderr' = 'stdout'): Logger {
  const options = { level, base: { service: 'exchange' }, timestamp: pino.stdTimeFunctions.isoTime };
  return to === 'stdout' ? pino(options) : pino(options, pino.destination(2));
}
