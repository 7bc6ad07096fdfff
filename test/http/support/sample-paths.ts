// A concrete request path for every declared route, with placeholder ids filled in.
import { allRoutes } from '../../../src/server/http/app.ts';
import type { AnyRoute } from '../../../src/server/http/route.ts';

export const SAMPLE_IDS: Readonly<Record<string, string>> = {
  order_id: '3f2b7a3e-8f5e-4d7c-9a51-1c2d3e4f5a6b',
  market_id: 'BTC-USD',
  asset: 'swagger-ui.css',
};

export function samplePath(route: AnyRoute): string {
  return route.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_m, name: string) => SAMPLE_IDS[name] ?? name);
}

export const ROUTES: readonly AnyRoute[] = allRoutes(() => '{}');
