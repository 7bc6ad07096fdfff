// Starts the real service on an ephemeral port for a test, with quiet logs.
import { startServer, type RunningServer } from '../../src/server/app.ts';
import { loadConfig } from '../../src/server/config.ts';
import { createLogger } from '../../src/server/logger.ts';

export const ADMIN_TOKEN = 'test-admin-token';

export async function startTestServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const config = loadConfig({ BIND_ADDR: '127.0.0.1:0', ADMIN_API_TOKEN: ADMIN_TOKEN, LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent', ...env });
  return startServer(config, createLogger(config.logLevel));
}
