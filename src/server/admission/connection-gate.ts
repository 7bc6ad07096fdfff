// WebSocket connection limits: in total, unauthenticated (anonymous) connections per remote address,
// and authenticated connections per trader. The gateway asks before it upgrades a socket and tells
// the gate when a connection opens, authenticates and closes; the message handler asks before it lets
// a connection authenticate. Addresses are the clients' (src/server/client-address/: behind a proxy
// named in TRUST_PROXY, the address it forwards, not its own).
import type { Limits } from '../config.ts';

export interface Refusal {
  readonly status: 429 | 503;
  readonly code: 'too_many_connections' | 'connection_capacity_reached';
  readonly message: string;
}

interface Entry {
  readonly address: string;
  trader: string | null;
}

export class ConnectionGate {
  private readonly limits: Limits;
  private readonly entries = new Map<object, Entry>();
  private readonly anonymousByAddress = new Map<string, number>();
  private readonly byTrader = new Map<string, number>();

  constructor(limits: Limits) {
    this.limits = limits;
  }

  get total(): number {
    return this.entries.size;
  }

  /** Null when a new connection from `address` may open; otherwise why not. */
  refuseUpgrade(address: string): Refusal | null {
    if (this.entries.size >= this.limits.ws_max_connections) {
      return { status: 503, code: 'connection_capacity_reached', message: `the server holds its maximum of ${this.limits.ws_max_connections} WebSocket connections; retry later` };
    }
    if ((this.anonymousByAddress.get(address) ?? 0) >= this.limits.ws_max_anonymous_per_address) {
      return {
        status: 429,
        code: 'too_many_connections',
        message: `too many unauthenticated WebSocket connections from this address: at most ${this.limits.ws_max_anonymous_per_address}; authenticate or close some`,
      };
    }
    return null;
  }

  opened(connection: object, address: string): void {
    this.entries.set(connection, { address, trader: null });
    bump(this.anonymousByAddress, address, 1);
  }

  /** Whether `connection` may (re)authenticate as `traderId` without passing the per-trader limit. */
  mayAuthenticate(connection: object, traderId: string): boolean {
    if (this.entries.get(connection)?.trader === traderId) return true;
    return (this.byTrader.get(traderId) ?? 0) < this.limits.ws_max_connections_per_trader;
  }

  setTrader(connection: object, traderId: string | null): void {
    const entry = this.entries.get(connection);
    if (entry === undefined || entry.trader === traderId) return;
    if (entry.trader === null) bump(this.anonymousByAddress, entry.address, -1);
    else bump(this.byTrader, entry.trader, -1);
    entry.trader = traderId;
    if (traderId === null) bump(this.anonymousByAddress, entry.address, 1);
    else bump(this.byTrader, traderId, 1);
  }

  closed(connection: object): void {
    const entry = this.entries.get(connection);
    if (entry === undefined) return;
    this.entries.delete(connection);
    if (entry.trader === null) bump(this.anonymousByAddress, entry.address, -1);
    else bump(this.byTrader, entry.trader, -1);
  }
}

function bump(map: Map<string, number>, key: string, by: number): void {
  const next = (map.get(key) ?? 0) + by;
  if (next <= 0) map.delete(key);
  else map.set(key, next);
}
