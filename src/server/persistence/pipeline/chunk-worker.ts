// A pipeline worker thread: processes the chunks the main thread posts, in the order they arrive.
// Events of an untrusted log are checked with the compiled shape check, built at the first chunk that
// asks for one (recovery from the exchange's own database never does).
import { parentPort } from 'node:worker_threads';
import { processChunk, type ChunkChecks, type ChunkRequest } from './chunk-work.ts';
import { compileEventCheck } from './compiled-event-check.ts';

if (parentPort === null) throw new Error('chunk-worker: not started as a worker thread');
const port = parentPort;
let checks: ChunkChecks | undefined;
port.on('message', (request: ChunkRequest) => {
  if (request.validate) checks ??= { plain: compileEventCheck(false), withHash: compileEventCheck(true) };
  const result = processChunk(request, checks);
  port.postMessage(result, [result.bytes.buffer as ArrayBuffer]);
});
