// GET /metrics on the main server, behind the admin token: the Prometheus text exposition. With
// METRICS_BIND_ADDR set the same text is also served without authentication on that listener
// (metrics-listener.ts), which is what a Prometheus inside the operator's network scrapes.
import { defineRoute, REPLIED } from '../../http/route.ts';
import { METRICS_CONTENT_TYPE } from './exchange-metrics.ts';

export const metricsRoute = defineRoute({
  method: 'get',
  path: '/metrics',
  access: 'admin',
  tag: 'Admin',
  summary: 'Prometheus metrics (text exposition format 0.0.4)',
  description:
    'Commands and refusals, REST and WebSocket latency, WebSocket connections and subscriptions, persistence writer figures and the ' +
    'process metrics. See docs/operations.md for the series and the alerts built on them. Also served without authentication on ' +
    'METRICS_BIND_ADDR when that is set.',
  success: { status: 200, description: 'the metrics', contentType: METRICS_CONTENT_TYPE },
  errors: [],
  handle: async (call) => {
    const text = await call.context.metrics.text();
    call.res.statusCode = 200;
    call.res.setHeader('content-type', METRICS_CONTENT_TYPE);
    call.res.setHeader('cache-control', 'no-store');
    call.res.end(text);
    return REPLIED;
  },
});
