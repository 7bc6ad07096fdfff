// A TCP proxy between the service and PostgreSQL, so tests can cut the database away (an outage),
// lose a reply at the worst moment (right after what commits a batch went out), and hold back what the
// server says after an error (so a client sees the ErrorResponse and its ReadyForQuery in two reads).
import net from 'node:net';

export class TcpProxy {
  private readonly targetHost: string;
  private readonly targetPort: number;
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private down = false;
  private cutAfterCommits = 0;
  /** How many connections were cut right after forwarding what commits a batch. */
  commitsCut = 0;
  port = 0;

  /** Milliseconds the server's messages after each ErrorResponse are held back (0: forwarded as they come). */
  private readonly holdAfterErrorMs: number;

  constructor(targetUrl: string, options: { holdAfterErrorMs?: number } = {}) {
    this.holdAfterErrorMs = options.holdAfterErrorMs ?? 0;
    const url = new URL(targetUrl);
    this.targetHost = url.hostname;
    this.targetPort = Number(url.port || 5432);
  }

  async start(): Promise<void> {
    this.server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => (this.server as net.Server).listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  /** The same database URL, through the proxy. */
  via(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  private accept(client: net.Socket): void {
    if (this.down) {
      client.destroy();
      return;
    }
    const upstream = net.connect(this.targetPort, this.targetHost);
    this.sockets.add(client);
    this.sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', drop);
    upstream.on('close', drop);
    if (this.holdAfterErrorMs > 0) this.holdAfterErrors(upstream, client);
    else upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('data', (chunk: Buffer) => {
      if (this.cutAfterCommits > 0 && commits(chunk)) {
        this.cutAfterCommits--;
        this.commitsCut++;
        // The server gets it (and commits); the client never hears back.
        upstream.end(chunk);
        client.destroy();
        this.sockets.delete(client);
        return;
      }
      upstream.write(chunk);
    });
  }

  /** Forwards the server's messages one by one, pausing holdAfterErrorMs after each ErrorResponse. */
  private holdAfterErrors(upstream: net.Socket, client: net.Socket): void {
    let pending = Buffer.alloc(0);
    const forward = (): void => {
      // A backend message: its type byte, then its length (which counts itself, not the type).
      while (pending.length >= 5 && pending.length >= 1 + pending.readUInt32BE(1)) {
        const message = pending.subarray(0, 1 + pending.readUInt32BE(1));
        pending = pending.subarray(message.length);
        client.write(message);
        if (message[0] === 0x45) {
          upstream.pause();
          setTimeout(() => {
            upstream.resume();
            forward();
          }, this.holdAfterErrorMs);
          return;
        }
      }
    };
    upstream.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      if (!upstream.isPaused()) forward();
    });
  }

  /** The outage: every connection drops, new ones are refused until restore(). */
  cut(): void {
    this.down = true;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.down = false;
  }

  /** The next n commits reach the server, and their connections are cut before the reply. */
  cutAfterNextCommits(n: number): void {
    this.cutAfterCommits = n;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => (this.server === null ? resolve() : this.server.close(() => resolve())));
  }
}

/**
 * What makes the server commit: a simple-protocol Query message ('Q', length, text) whose text is
 * COMMIT, or the end of a COPY's data (CopyDone: 'c', length 4), which is the last the client sends of a
 * batch whose query holds its own COMMIT after the COPY (log-channel.ts batchTransaction). A chunk may
 * hold the last CopyData with it; COPY text data ends in a newline, never in CopyDone's bytes.
 */
function commits(chunk: Buffer): boolean {
  if (chunk.length >= 5 && chunk.subarray(chunk.length - 5).equals(COPY_DONE)) return true;
  if (chunk.length < 6 || chunk[0] !== 0x51) return false;
  return /^commit;?\0$/i.test(chunk.subarray(5).toString('latin1').trim());
}

const COPY_DONE = Buffer.from([0x63, 0, 0, 0, 4]);
