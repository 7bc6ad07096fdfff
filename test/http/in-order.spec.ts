// Pipelined requests are handled one at a time in the order sent (src/server/http/in-order.ts). A
// client that sends on and never reads must not get every request it sent parsed and held: past a few
// waiting on its connection, the server stops reading it.
import { expect } from 'chai';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { inOrder, MAX_QUEUED } from '../../src/server/http/in-order.ts';

describe('http: pipelined requests in order, and bounded', function () {
  this.timeout(20_000);

  it('answers in the order sent, each handled after the one before is done', async () => {
    const handled: string[] = [];
    let firstDone = false;
    const server = createServer(
      inOrder((req: IncomingMessage, res: ServerResponse) => {
        // Each handled only once the one before is done (the first answers late).
        handled.push(`${req.url ?? ''}${req.url === '/1' || firstDone ? '' : ' early'}`);
        setTimeout(() => {
          if (req.url === '/1') firstDone = true;
          res.end(req.url);
        }, req.url === '/1' ? 100 : 0);
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const text = await new Promise<string>((resolve) => {
        let out = '';
        const socket = connect(port, '127.0.0.1', () => socket.write(['/1', '/2', '/3'].map((p) => `GET ${p} HTTP/1.1\r\nHost: x\r\n\r\n`).join('')));
        socket.on('data', (d: Buffer) => {
          out += d.toString();
          if ((out.match(/HTTP\/1\.1 200/g) ?? []).length === 3) socket.end();
        });
        socket.on('close', () => resolve(out));
      });
      expect(handled).to.deep.equal(['/1', '/2', '/3']);
      expect(text.indexOf('\r\n\r\n/1')).to.be.lessThan(text.indexOf('\r\n\r\n/2'));
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('a connection with more than MAX_QUEUED requests waiting behind one not done is closed, none of them handled', async () => {
    let parsed = 0;
    const handled: string[] = [];
    const handler = inOrder((req: IncomingMessage, res: ServerResponse) => {
      handled.push(req.url ?? '');
      // The first holds its answer (a slow command, a durable ack): everything sent behind it waits.
      if (req.url === '/hold') setTimeout(() => res.end('held'), 300);
      else res.end('ok');
    });
    const server = createServer((req, res) => {
      parsed++;
      handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const run = async (behind: number): Promise<{ closed: boolean; answers: number }> => {
        const socket = connect(port, '127.0.0.1');
        await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
        let answers = 0;
        socket.on('error', () => {});
        socket.on('data', (d: Buffer) => {
          answers += (d.toString('latin1').match(/HTTP\/1\.1 200/g) ?? []).length;
        });
        const closed = new Promise<boolean>((resolve) => {
          socket.on('close', () => resolve(true));
          setTimeout(() => resolve(false), 1500);
        });
        socket.write('GET /hold HTTP/1.1\r\nHost: x\r\n\r\n' + Array.from({ length: behind }, (_, i) => `GET /${i} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''));
        const result = { closed: await closed, answers };
        socket.destroy();
        return result;
      };
      // Within the bound: all answered, in order.
      expect(await run(MAX_QUEUED)).to.deep.equal({ closed: false, answers: MAX_QUEUED + 1 });
      expect(handled.slice(1)).to.deep.equal(Array.from({ length: MAX_QUEUED }, (_, i) => `/${i}`));
      // Far past it: closed, and nothing that waited was handled.
      handled.length = 0;
      const before = parsed;
      const flood = await run(4000);
      expect(flood.closed).to.equal(true);
      expect(handled).to.deep.equal(['/hold']);
      expect(parsed - before).to.be.lessThan(4001);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
