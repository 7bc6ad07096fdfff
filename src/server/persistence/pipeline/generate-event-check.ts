// `npm run generate:event-check`: writes event-check.generated.js from the event schemas (see
// event-check-source.ts).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { eventCheckSource, GENERATED_EVENT_CHECK } from './event-check-source.ts';

writeFileSync(GENERATED_EVENT_CHECK, eventCheckSource());
console.log(`wrote ${fileURLToPath(GENERATED_EVENT_CHECK)}`);
