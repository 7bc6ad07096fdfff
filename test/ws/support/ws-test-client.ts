// A real `ws` client for tests: keeps every frame it received, in order, and lets a test wait for the
// next frame that matches, with a timeout that names what it waited for.
import { WebSocket, type ClientOptions } from 'ws';
import { checkServerFrame } from '../../support/contract.ts';

export type Frame = { readonly type: string } & Record<string, unknown>;

export class WsTestClient {
  readonly ws: WebSocket;
  /** Every frame received, in arrival order. */
  readonly history: Frame[] = [];
  private pending: Frame[] = [];
  /** The first frame that broke the AsyncAPI document (contract check): the next wait fails with it. */
  private violation: string | null = null;
  private readonly waiters = new Set<() => void>();

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (data) => {
      const text = String(data);
      this.violation ??= checkServerFrame(text);
      const frame = JSON.parse(text) as Frame;
      this.history.push(frame);
      this.pending.push(frame);
      for (const wake of [...this.waiters]) wake();
    });
  }

  static async open(url: string, options?: ClientOptions): Promise<WsTestClient> {
    const ws = new WebSocket(url, options);
    const client = new WsTestClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return client;
  }

  send(frame: object | string): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** Removes and returns the first not yet taken frame that matches. */
  async next(match: (f: Frame) => boolean = () => true, what = 'a frame', timeoutMs = 5000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.violation !== null) throw new Error(`contract: ${this.violation}`);
      const i = this.pending.findIndex(match);
      if (i >= 0) return this.pending.splice(i, 1)[0] as Frame;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; pending: ${JSON.stringify(this.pending.slice(0, 5))}`);
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.waiters.add(wake);
      });
    }
  }

  nextType(type: string, timeoutMs?: number): Promise<Frame> {
    return this.next((f) => f.type === type, `type ${type}`, timeoutMs);
  }

  /** Sends a frame with a request_id and waits for the frame that answers it. */
  async request(frame: Record<string, unknown> & { request_id: string }, timeoutMs?: number): Promise<Frame> {
    this.send(frame);
    return this.next((f) => f['request_id'] === frame.request_id, `reply to ${frame.request_id}`, timeoutMs);
  }

  /** Frames not yet taken, of one type (or all). */
  untaken(type?: string): Frame[] {
    return type === undefined ? this.pending.slice() : this.pending.filter((f) => f.type === type);
  }

  take(type: string): Frame[] {
    const taken = this.pending.filter((f) => f.type === type);
    this.pending = this.pending.filter((f) => f.type !== type);
    return taken;
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      this.ws.once('close', () => resolve());
      this.ws.terminate();
    });
  }
}

/** Resolves after `ms`, for waiting out something that must not happen. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
