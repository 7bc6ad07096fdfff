// Starts the real service on an ephemeral port for a test, with quiet logs.
import { startServer, type RunningServer } from '../../src/server/app.ts';
import { loadConfig } from '../../src/server/config.ts';
import { createLogger } from '../../src/server/logger.ts';

export const ADMIN_TOKEN = 'test-admin-token';

/**
 * WS_FANOUT from the test run's environment (package.json runs the WebSocket suites once more with
 * WS_FANOUT=inline); a test that sets it itself wins.
 */
export function fanoutFromEnv(): Record<string, string> {
  const mode = process.env['WS_FANOUT'];
  return mode === undefined ? {} : { WS_FANOUT: mode };
}

export async function startTestServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const config = loadConfig({ BIND_ADDR: '127.0.0.1:0', ADMIN_API_TOKEN: ADMIN_TOKEN, LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent', ...fanoutFromEnv(), ...env });
  return startServer(config, createLogger(config.logLevel));
}
