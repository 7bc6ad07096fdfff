// `npm start`: the exchange's process. Node's compile cache (in the system's temporary directory) keeps
// what loading the modules compiled, so a restart loads them in about three quarters of the time
// (docs/benchmarks.md, Soak: 1.0-1.1 s against 1.3-1.4 s to import the server here); the modules are
// imported only once it is on (serve.ts does the rest).
import { enableCompileCache } from 'node:module';

enableCompileCache();
await import('./serve.ts');
