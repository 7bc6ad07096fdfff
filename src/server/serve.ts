// The service's process (main.ts loads it): read the configuration, start the exchange, stop gracefully
// on SIGTERM or SIGINT.
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
  // Stop signals, by phase. Until the server listens it has served nothing and recovery only reads, so a
  // signal ends the process at once, as the default action does (a start stalled on an unanswering
  // database stays stoppable). From `exchange listening` (logged inside startServer) until startServer
  // returns, the signal is kept and the server stopped gracefully once it is up: a supervisor or a test
  // that signals on that line must not meet the default action. Then a signal stops gracefully. Repeats
  // are ignored: a supervisor that signals the process group delivers one signal twice, milliseconds
  // apart (once itself, once forwarded by npm), and the second must not cut the writer's flush short.
  let phase: 'starting' | 'listening' | 'running' = 'starting';
  let running: { close(): Promise<void> } | undefined;
  let kept: NodeJS.Signals | undefined;
  let stopping = false;
  const die = (signal: NodeJS.Signals): void => {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  };
  const stop = (signal: NodeJS.Signals): void => {
    if (running === undefined || stopping) return;
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
  const onSignal = (signal: NodeJS.Signals): void => {
    if (phase === 'starting') {
      // Written at once, like the other startup messages: the logger writes asynchronously, and the
      // process ends before such a write would land.
      process.stderr.write(`exchange: ${signal} during startup: exiting\n`);
      die(signal);
    } else if (phase === 'listening') kept ??= signal;
    else stop(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  let server;
  try {
    server = await startServer(config, logger, {
      onListening: () => {
        phase = 'listening';
      },
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
  phase = 'running';
  // A promise rejected with nobody listening is a bug, but not one that should take the exchange and
  // every trader's session down with it: log it loudly and keep serving.
  process.on('unhandledRejection', (reason: unknown) => {
    logger.error({ err: reason }, 'unhandled promise rejection');
  });
  if (kept !== undefined) stop(kept);
}

void main();
