// A client that sends each command to whichever node admits commands, as a trading bot behind a load
// balancer would: on `not_leader` or a connection error it finds the leader again (GET /health of each
// node) and retries the same command; client_order_id makes a retry of an order that did commit come
// back as the duplicate answer (200) instead of a second order.
import { health } from './cluster.ts';

export interface Answer {
  readonly status: number;
  readonly code: string | null;
  readonly body: unknown;
}

export class LeaderRouter {
  readonly nodes: string[];
  private leader: string | null = null;
  /** Answers that are neither success, a business refusal, not_leader nor a connection error. */
  readonly wrong: string[] = [];

  constructor(nodes: string[]) {
    this.nodes = nodes;
  }

  private async findLeader(): Promise<string | null> {
    for (const url of this.nodes) {
      try {
        const h = await health(url);
        if (h.admitting === true) return url;
      } catch {
        // a dead node
      }
    }
    return null;
  }

  /** Sends until a node answers it as the leader; null when the deadline passes first. */
  async send(method: string, path: string, headers: Record<string, string>, body: unknown, deadlineMs = 15_000): Promise<Answer | null> {
    const deadline = Date.now() + deadlineMs;
    while (Date.now() < deadline) {
      this.leader ??= await this.findLeader();
      const url = this.leader;
      if (url === null) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      try {
        const res = await fetch(url + path, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
        const text = await res.text();
        const code = res.headers.get('x-error-code');
        if (res.status === 503 && code === 'not_leader') {
          this.leader = null;
          continue;
        }
        if (res.status >= 500) {
          this.wrong.push(`${method} ${path}: ${res.status} ${text}`);
          this.leader = null;
          continue;
        }
        return { status: res.status, code, body: text === '' ? null : JSON.parse(text) };
      } catch {
        // The node died under us: find the leader again.
        this.leader = null;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    return null;
  }
}
