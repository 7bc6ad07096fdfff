// The core (events, commands, pure projections) imports no I/O, no clock and no random source: that
// is what makes decide and evolve deterministic, and replay trustworthy. This reads every import of
// every core file and fails on anything outside the allow list.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const CORE = ['src/events', 'src/commands', 'src/projections'];
const ALLOWED_PACKAGES = new Set(['rxjs', 'zod']);
// Hashing is pure; `hash` and `createHash` are the only things the core may take from node:crypto.
const ALLOWED_NODE = new Map([['node:crypto', /^\{\s*(createHash,\s*)?hash\s*\}$/]]);
const FORBIDDEN_GLOBALS = [/\bDate\.now\s*\(/, /\bnew Date\s*\(/, /\bMath\.random\s*\(/, /\bperformance\.now\s*\(/, /\bprocess\./, /\bsetTimeout\s*\(/, /\bsetInterval\s*\(/, /\bcrypto\.randomUUID/, /\brequire\s*\(/];

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

interface Import {
  readonly what: string;
  readonly from: string;
  /** `import type` / `export type`: erased, loads nothing. */
  readonly typeOnly: boolean;
}

function importsOf(source: string): Import[] {
  const out: Import[] = [];
  const re = /(?:^|\n)\s*(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/g;
  for (let m = re.exec(source); m !== null; m = re.exec(source)) out.push({ what: (m[2] ?? '').trim(), from: m[3] ?? '', typeOnly: m[1] !== undefined });
  const dynamic = /import\s*\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (let m = dynamic.exec(source); m !== null; m = dynamic.exec(source)) out.push({ what: '(dynamic)', from: m[1] ?? '', typeOnly: false });
  return out;
}

describe('architecture: the core imports no I/O, clock or random source', () => {
  const files = CORE.flatMap(filesUnder);

  it('finds the core files', () => {
    expect(files.length).to.be.greaterThan(15);
  });

  for (const file of files) {
    it(`${file}`, () => {
      const source = readFileSync(join(ROOT, file), 'utf8');
      for (const { what, from } of importsOf(source)) {
        if (from.startsWith('.')) {
          const target = relative(ROOT, join(ROOT, file, '..', from));
          expect(CORE.some((dir) => target.startsWith(dir + '/')), `${file} imports ${from}, outside the core`).to.equal(true);
          continue;
        }
        const allowedNode = ALLOWED_NODE.get(from);
        if (allowedNode !== undefined) {
          expect(what, `${file} imports ${what} from ${from}`).to.match(allowedNode);
          continue;
        }
        expect(ALLOWED_PACKAGES.has(from), `${file} imports ${from}`).to.equal(true);
      }
      const code = source.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
      for (const pattern of FORBIDDEN_GLOBALS) expect(pattern.test(code), `${file} uses ${pattern}`).to.equal(false);
    });
  }

  it('would catch a forbidden import', () => {
    const imports = importsOf("import { Client } from 'pg';\nimport express from 'express';\nconst fs = await import('node:fs');");
    expect(imports.map((i) => i.from)).to.deep.equal(['pg', 'express', 'node:fs']);
  });
});

/** The packages and node: modules a file loads, following its relative value imports (type imports load nothing). */
function packagesLoadedBy(file: string, seen = new Set<string>()): Set<string> {
  const packages = new Set<string>();
  if (seen.has(file)) return packages;
  seen.add(file);
  for (const { from, typeOnly } of importsOf(readFileSync(join(ROOT, file), 'utf8'))) {
    if (typeOnly) continue;
    if (from.startsWith('.')) for (const p of packagesLoadedBy(relative(ROOT, join(ROOT, file, '..', from)), seen)) packages.add(p);
    else packages.add(from);
  }
  return packages;
}

describe('architecture: the log pipeline\'s worker threads start light', () => {
  // A worker frames and hashes; it never checks an event's shape, and loading the schemas (zod) was
  // most of its start, paid at the beginning of every recovery and replay.
  it('chunk-worker.ts does not load zod, through any of its imports', () => {
    const loaded = packagesLoadedBy('src/server/persistence/pipeline/chunk-worker.ts');
    expect([...loaded]).to.include('node:worker_threads');
    expect([...loaded]).to.include('node:crypto');
    expect([...loaded]).to.not.include('zod');
  });

  it('would see zod loaded through a chain of imports', () => {
    expect([...packagesLoadedBy('src/server/persistence/pipeline/well-formed-event.ts')]).to.include('zod');
  });
});
