// The core (events, commands, pure projections) imports no I/O, no clock and no random source: that
// is what makes decide and evolve deterministic, and replay trustworthy. This reads every import of
// every core file and fails on anything outside the allow list. It also reads every import of the
// product's code and fails on files that import one another (a cycle, however long), and on a file of
// src/ importing from a layer above its own (docs/architecture.md, "The rooms").
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

/**
 * The files that import one another in a circle (type imports included), one list per knot: the strongly
 * connected components of the import graph with more than one file, or a file that imports itself.
 */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const knots: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const knot: string[] = [];
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      onStack.delete(member);
      knot.push(member);
      if (member === file) break;
    }
    if (knot.length > 1 || (graph.get(file) ?? []).includes(file)) knots.push(knot.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return knots;
}

/** Every relative import of every TypeScript file under `dirs`, as paths from the repository's root. */
function importGraph(dirs: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of dirs.flatMap(filesUnder)) {
    const targets = importsOf(readFileSync(join(ROOT, file), 'utf8'))
      .filter(({ from }) => from.startsWith('.'))
      .map(({ from }) => relative(ROOT, join(ROOT, file, '..', from)));
    graph.set(file, targets);
  }
  return graph;
}

describe('architecture: no two files import each other, directly or through others', () => {
  // A circle of imports (even of types only) means neither file can be read, moved or tested without
  // the other: the shared part belongs in a file both import. The product's own code, every folder.
  const CODE = ['src', 'replay', 'practice', 'bots', 'bench', 'deploy', 'demo', 'web/src', 'clients/typescript/src'];

  it('finds no import cycle', () => {
    const graph = importGraph(CODE);
    expect(graph.size).to.be.greaterThan(200);
    expect([...graph.keys()]).to.include.members(['src/server/main.ts', 'replay/cli.ts', 'web/src/main.ts']);
    const knots = importCycles(graph).map((knot) => knot.join(' <-> '));
    expect(knots, `files that import one another:\n  ${knots.join('\n  ')}`).to.deep.equal([]);
  });

  it('would find a cycle of two, of three, and a file importing itself, and nothing in a chain', () => {
    const graph = new Map<string, string[]>([
      ['a.ts', ['b.ts']],
      ['b.ts', ['a.ts', 'c.ts']],
      ['c.ts', ['d.ts']],
      ['d.ts', ['e.ts']],
      ['e.ts', ['c.ts', 'outside.ts']],
      ['f.ts', ['f.ts']],
      ['g.ts', ['a.ts', 'c.ts']],
    ]);
    expect(importCycles(graph)).to.have.deep.members([['a.ts', 'b.ts'], ['c.ts', 'd.ts', 'e.ts'], ['f.ts']]);
    expect(importCycles(new Map([['x.ts', ['y.ts']], ['y.ts', ['z.ts']], ['z.ts', []]]))).to.deep.equal([]);
  });

  it('reads type imports and re-exports as edges', () => {
    const imports = importsOf("import type { A } from './a.ts';\nexport { b } from './b.ts';\nexport type { C } from './c.ts';");
    expect(imports.map((i) => i.from)).to.deep.equal(['./a.ts', './b.ts', './c.ts']);
  });
});

/**
 * The layers of src/, lowest first (docs/architecture.md, "The rooms"): a file may import its own layer
 * and the layers below, never one above. A path ending in "/" is a folder; the first entry that matches
 * a file names its layer, so the service's own folders come before src/server/ itself.
 */
const LAYERS: readonly (readonly [string, readonly string[]])[] = [
  ['the core: events and the error registry', ['src/events/', 'src/commands/errors.ts']],
  ['the core: projections', ['src/projections/']],
  ['the core: commands', ['src/commands/']],
  ['foundations: config, clock, logger, client addresses', ['src/server/config.ts', 'src/server/clock.ts', 'src/server/logger.ts', 'src/server/client-address/']],
  ['the service: admission, persistence, history, practice, key usage', ['src/server/service.ts', 'src/server/admission/', 'src/server/persistence/', 'src/server/history/', 'src/server/practice/', 'src/server/keys/']],
  ['cluster mode', ['src/server/replication/']],
  ['the doors: HTTP, WebSocket, feeds, fan-out, operations', ['src/server/context.ts', 'src/server/http/', 'src/server/ws/', 'src/server/feeds/', 'src/server/fanout/', 'src/server/operations/']],
  ['the composition root', ['src/server/']],
];

/**
 * Imports known to point up, each with its reason. A new one fails the test; one that goes away fails it
 * too, until it is taken off this list.
 */
const KNOWN_UPWARD = new Map<string, string>([
]);

function layerOf(file: string): number {
  return LAYERS.findIndex(([, paths]) => paths.some((path) => (path.endsWith('/') ? file.startsWith(path) : file === path)));
}

/**
 * Every import in `graph` from a file of src/ to a file of a higher layer, or to a file outside src/. An
 * import of a file that does not exist is the type check's to report, not a layer's.
 */
function upwardImports(graph: ReadonlyMap<string, readonly string[]>, exists: (file: string) => boolean = (file) => existsSync(join(ROOT, file))): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    if (!file.startsWith('src/')) continue;
    for (const target of targets) {
      if (!exists(target)) continue;
      if (!target.startsWith('src/')) out.push(`${file} imports ${target}, outside src/`);
      else if (layerOf(target) > layerOf(file)) out.push(`${file} (${LAYERS[layerOf(file)]?.[0]}) imports ${target} (${LAYERS[layerOf(target)]?.[0]})`);
    }
  }
  return out;
}

/** "a.ts (layer) imports b.ts (layer)" as "a.ts -> b.ts". */
function edgeOf(line: string): string {
  const [from, to] = line.split(' imports ') as [string, string];
  return `${from.split(' ')[0]} -> ${to.split(' ')[0]?.replace(/,$/, '')}`;
}

describe('architecture: the layers of src/ point one way', () => {
  it('every file of src/ has a layer', () => {
    const files = filesUnder('src');
    expect(files.filter((file) => layerOf(file) < 0)).to.deep.equal([]);
    expect(layerOf('src/server/main.ts')).to.equal(LAYERS.length - 1);
  });

  it('no file imports a layer above its own, nor anything outside src/', () => {
    const upward = upwardImports(importGraph(['src'])).filter((line) => !KNOWN_UPWARD.has(edgeOf(line)));
    expect(upward, `imports that point up:\n  ${upward.join('\n  ')}`).to.deep.equal([]);
  });

  it('every known upward import is still there (take it off KNOWN_UPWARD when it goes)', () => {
    const edges = new Set(upwardImports(importGraph(['src'])).map(edgeOf));
    expect([...KNOWN_UPWARD.keys()].filter((edge) => !edges.has(edge))).to.deep.equal([]);
  });

  it('would see an import that points up, and one that leaves src/', () => {
    const graph = new Map<string, string[]>([
      ['src/server/persistence/x.ts', ['src/events/types.ts', 'src/server/ws/gateway.ts']],
      ['src/projections/y.ts', ['src/commands/errors.ts', 'replay/cli.ts']],
      ['src/server/http/z.ts', ['src/server/ws/connection.ts', 'src/server/service.ts']],
    ]);
    expect(upwardImports(graph, () => true)).to.deep.equal([
      'src/server/persistence/x.ts (the service: admission, persistence, history, practice, key usage) imports src/server/ws/gateway.ts (the doors: HTTP, WebSocket, feeds, fan-out, operations)',
      'src/projections/y.ts imports replay/cli.ts, outside src/',
    ]);
  });
});
