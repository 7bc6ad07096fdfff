// The HTTP API under test, on an ephemeral port, with real HTTP. Composed like src/server/app.ts
// (in-memory persistence, the service, the express app) but without the WebSocket gateway.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Exchange } from '../../../src/commands/exchange.ts';
import { AdmissionClock } from '../../../src/server/clock.ts';
import { loadConfig } from '../../../src/server/config.ts';
import type { ServerContext } from '../../../src/server/context.ts';
import { createHttpApp } from '../../../src/server/http/app.ts';
import { createLogger, type Logger } from '../../../src/server/logger.ts';
import { InMemoryPersistence } from '../../../src/server/persistence/in-memory.ts';
import { ExchangeService } from '../../../src/server/service.ts';

export const ADMIN_TOKEN = 'test-admin-token';

export interface HttpTestServer {
  readonly url: string;
  readonly context: ServerContext;
  close(): Promise<void>;
}

/** `logger`: a test's own (to read what is logged); by default one at the configured level. */
export async function startHttpTestServer(env: Record<string, string> = {}, logger?: Logger): Promise<HttpTestServer> {
  const config = loadConfig({ BIND_ADDR: '127.0.0.1:0', ADMIN_API_TOKEN: ADMIN_TOKEN, LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent', ...env });
  logger ??= createLogger(config.logLevel);
  const persistence = new InMemoryPersistence();
  const exchange = new Exchange({ log: persistence.log });
  const clock = new AdmissionClock();
  const service = new ExchangeService(exchange, persistence, clock, { durableAcks: false });
  const context: ServerContext = { config, service, clock, logger, epoch: persistence.epoch };
  const http = createServer(createHttpApp(context));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    context,
    close: async () => {
      service.close();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeIdleConnections();
      });
      await persistence.close();
    },
  };
}
