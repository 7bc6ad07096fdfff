// `npm start`: read the configuration, start the exchange, stop gracefully on SIGTERM or SIGINT.
import { ConfigError, loadConfig } from './config.ts';
import { startServer } from './app.ts';
import { createLogger } from './logger.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`exchange: configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  // The handlers go in before the server starts: "exchange listening" is logged inside startServer, and
  // a supervisor (or a test) that signals as soon as it reads that line must get a graceful stop, not
  // the default handler's exit by signal. A signal during startup is kept and acted on once it is up.
  let running: { close(): Promise<void> } | undefined;
  let signalledDuringStartup: string | undefined;
  let stopping = false;
  const stop = (signal: string) => {
    if (running === undefined) {
      signalledDuringStartup ??= signal;
      return;
    }
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    running.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  let server;
  try {
    server = await startServer(config, logger, {
      // Cluster mode: a node that can no longer vouch for its state ends, so a supervisor restarts it
      // (as a follower or standby) on the log as it is.
      onFatal: (err) => {
        process.stderr.write(`exchange: ${err.message}\n`);
        setTimeout(() => process.exit(1), 50);
      },
    });
  } catch (err) {
    logger.fatal({ err }, 'exchange failed to start');
    process.stderr.write(`exchange: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
  running = server;
  // A promise rejected with nobody listening is a bug, but not one that should take the exchange and
  // every trader's session down with it: log it loudly and keep serving.
  process.on('unhandledRejection', (reason: unknown) => {
    logger.error({ err: reason }, 'unhandled promise rejection');
  });
  if (signalledDuringStartup !== undefined) stop(signalledDuringStartup);
}

void main();
