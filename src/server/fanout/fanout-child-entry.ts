// The fan-out child's entry point: the main process forks this file (fanout-link.ts). Node's compile
// cache (in the system's temporary directory) halves the time a child takes to load its modules, which
// every server start and every respawn waits for; the modules are imported only once it is on.
import { enableCompileCache } from 'node:module';

enableCompileCache();
const { runFanoutChild } = await import('./fanout-child.ts');
runFanoutChild();
