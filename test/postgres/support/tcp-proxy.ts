// A TCP proxy between the service and PostgreSQL, so tests can cut the database away (an outage),
// lose a reply at the worst moment (the server has committed a batch, the client never hears it), and
// hold back what the server says after an error (so a client sees the ErrorResponse and its
// ReadyForQuery in two reads).
import net from 'node:net';

export class TcpProxy {
  private readonly targetHost: string;
  private readonly targetPort: number;
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private down = false;
  private cutAfterCommits = 0;
  /** How many connections were cut right after the server committed, before its reply went on. */
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
    this.forwardServer(upstream, client);
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
  }

  /**
   * Forwards the server's messages one by one: pausing holdAfterErrorMs after each ErrorResponse, and,
   * while commits are to be cut, cutting the client off at a CommandComplete of COMMIT, which the server
   * sends once the transaction has committed (whatever the query held: a plain COMMIT, or a batch's
   * one query of BEGIN, NOTIFY, its COPYs and COMMIT).
   */
  private forwardServer(upstream: net.Socket, client: net.Socket): void {
    let pending = Buffer.alloc(0);
    const forward = (): void => {
      // A backend message: its type byte, then its length (which counts itself, not the type).
      while (pending.length >= 5 && pending.length >= 1 + pending.readUInt32BE(1)) {
        const message = pending.subarray(0, 1 + pending.readUInt32BE(1));
        pending = pending.subarray(message.length);
        if (this.cutAfterCommits > 0 && isCommitComplete(message)) {
          this.cutAfterCommits--;
          this.commitsCut++;
          // The server has committed; the client never hears back.
          client.destroy();
          upstream.destroy();
          this.sockets.delete(client);
          this.sockets.delete(upstream);
          return;
        }
        client.write(message);
        if (message[0] === 0x45 && this.holdAfterErrorMs > 0) {
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

/** A CommandComplete ('C') whose tag is COMMIT: the server's word that a transaction committed. */
function isCommitComplete(message: Buffer): boolean {
  return message[0] === 0x43 && message.subarray(5).toString('latin1') === 'COMMIT\0';
}
