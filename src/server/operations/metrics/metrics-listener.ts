// METRICS_BIND_ADDR: a listener of its own that answers GET /metrics without authentication and
// nothing else, so Prometheus can scrape from the operator's network while the API port (and its
// admin token) stays as it is. Bind it to an address only the monitoring network reaches.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../logger.ts';
import { METRICS_CONTENT_TYPE, type ExchangeMetrics } from './exchange-metrics.ts';

export interface MetricsListener {
  readonly url: string;
  close(): Promise<void>;
}

export async function startMetricsListener(metrics: ExchangeMetrics, host: string, port: number, logger: Logger): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    const json = (status: number, code: string, error: string) => {
      res.statusCode = status;
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.setHeader('x-error-code', code);
      res.end(JSON.stringify({ error }));
    };
    if (path !== '/metrics') return json(404, 'not_found', `no such route: ${req.method} ${path}; this listener serves GET /metrics only`);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return json(405, 'method_not_allowed', `method ${req.method} not allowed on /metrics; allowed: GET, HEAD`);
    }
    metrics.text().then(
      (text) => {
        res.statusCode = 200;
        res.setHeader('content-type', METRICS_CONTENT_TYPE);
        res.setHeader('cache-control', 'no-store');
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        logger.error({ err }, 'rendering metrics failed');
        json(500, 'internal', 'internal error');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  logger.info({ host, port: bound }, 'metrics listening');
  return {
    url: `http://${shownHost}:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
