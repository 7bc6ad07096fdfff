// Which trader a REST request runs for, so the command it admits waits in that trader's lane of the
// fair queue: the route mount records it once it authenticated the caller, and runCommand reads it.
// Requests without an entry (operators, public routes) use the operators' lane, which goes first.
import type { ServerResponse } from 'node:http';

const lanes = new WeakMap<ServerResponse, string>();

export function setTraderLane(res: ServerResponse, traderId: string): void {
  lanes.set(res, traderId);
}

export function traderLaneOf(res: ServerResponse): string | null {
  return lanes.get(res) ?? null;
}
