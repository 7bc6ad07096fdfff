// The HTTP API under test: the whole service (startServer, in memory unless env says otherwise) on an
// ephemeral port, with real HTTP.
import { startServer } from '../../../src/server/app.ts';
import { loadConfig } from '../../../src/server/config.ts';
import type { ServerContext } from '../../../src/server/context.ts';
import { createLogger, type Logger } from '../../../src/server/logger.ts';
import { fanoutFromEnv } from '../../support/server.ts';

export const ADMIN_TOKEN = 'test-admin-token';

export interface HttpTestServer {
  readonly url: string;
  readonly context: ServerContext;
  close(): Promise<void>;
}

/** `logger`: a test's own (to read what is logged); by default one at the configured level. */
export async function startHttpTestServer(env: Record<string, string> = {}, logger?: Logger): Promise<HttpTestServer> {
  const config = loadConfig({ BIND_ADDR: '127.0.0.1:0', ADMIN_API_TOKEN: ADMIN_TOKEN, LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent', ...fanoutFromEnv(), ...env });
  const server = await startServer(config, logger ?? createLogger(config.logLevel));
  return { url: server.url, context: server.context, close: () => server.close() };
}
