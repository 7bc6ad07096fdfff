import { rebuild } from '../replay/rebuild.ts';
const t = performance.now();
const r = await rebuild({ file: process.argv[2]!, quiet: true } as never);
console.log(`rebuild ${r.exchange.seq} events in ${(performance.now() - t).toFixed(0)} ms = ${Math.round(r.exchange.seq / (performance.now() - t) * 1000)}/s`);
