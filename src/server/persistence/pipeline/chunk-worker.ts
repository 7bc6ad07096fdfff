// A pipeline worker thread: processes the chunks the main thread posts, in the order they arrive.
// Workers frame and hash-check; they never check the events' shape (the caller does, on the events it
// parses anyway: see checkedEvents in chunk-pipeline.ts). Once its modules are loaded it counts itself
// started (shared memory): until one has, the main thread processes the chunks itself rather than wait.
import { parentPort, workerData } from 'node:worker_threads';
import { processChunk, type ChunkRequest } from './chunk-work.ts';

if (parentPort === null) throw new Error('chunk-worker: not started as a worker thread');
const port = parentPort;
port.on('message', (request: ChunkRequest) => {
  const result = processChunk(request, undefined, true);
  port.postMessage(result, [result.bytes.buffer as ArrayBuffer]);
});
Atomics.add(new Int32Array((workerData as { started: SharedArrayBuffer }).started), 0, 1);
