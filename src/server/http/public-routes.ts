// Unauthenticated routes: health, the market list, the OpenAPI document and its interactive reference.
import { z } from 'zod';
import { HealthSchema, MarketSchema } from './response-schemas.ts';
import { defineRoute, type AnyRoute } from './route.ts';

export const publicRoutes: readonly AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/health',
    access: 'public',
    tag: 'Public',
    summary: 'Liveness and persistence health',
    description:
      'status is ok while persistence mode is disabled or ok, degraded while it is retrying, backpressured or stopped; the service still answers from memory then. ' +
      'With ROLE set (cluster mode, docs/cluster.md): role and admitting say whether this node takes commands; replication gives the seq this node holds, the newest seq it knows the log holds, and its lag. ' +
      'On a practice exchange (docs/practice.md), now is the simulated time and practice is the play\'s status.',
    success: { status: 200, description: 'the health report', schema: HealthSchema },
    errors: [],
    handle: (call) => {
      const p = call.context.service.persistence.status();
      const degraded = p.mode === 'retrying' || p.mode === 'backpressured' || p.mode === 'stopped';
      const cluster = call.context.cluster?.health();
      const practice = call.context.practice;
      return {
        status: degraded ? 'degraded' : 'ok',
        service: 'exchange',
        now: call.context.clock.now(),
        persistence: { backend: p.backend, mode: p.mode, queue_depth: p.queue_depth, last_error: p.last_error },
        // Cluster mode only (a process without ROLE answers exactly as before): what a load balancer
        // routes by. admitting: this node takes commands (a leader holding its database session).
        ...(cluster === undefined
          ? {}
          : {
              role: cluster.role,
              admitting: call.context.service.refusal() === null && !call.context.service.isClosed,
              replication: { seq: cluster.seq, head_seq: cluster.head_seq, lag_events: cluster.lag_events, lag_ms: cluster.lag_ms, ...(cluster.fenced === undefined ? {} : { fenced: cluster.fenced }) },
            }),
        // A practice exchange says so (the dashboard shows its clock and progress then).
        ...(practice === undefined ? {} : { practice: practice.status() }),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/markets',
    access: 'public',
    tag: 'Public',
    summary: 'All markets, by market_id',
    success: { status: 200, description: 'array of Market', schema: z.array(MarketSchema) },
    errors: [],
    handle: (call) => call.context.service.state.markets.list(),
  }),
];
