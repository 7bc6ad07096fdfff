// `npm run build:web`: bundles the dashboard (web/src) with esbuild into one minified JS and one CSS
// file under dist/web/assets, names them by content hash (so the server can let browsers cache them
// for good), and writes dist/web/index.html pointing at them. Prints the sizes, gzipped too.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';

const ROOT = new URL('..', import.meta.url).pathname;
const OUT = join(ROOT, 'dist', 'web');
const ASSETS = join(OUT, 'assets');

export async function buildWeb(): Promise<{ js: string; css: string }> {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(ASSETS, { recursive: true });
  const result = await build({
    entryPoints: { app: join(ROOT, 'web/src/main.ts'), style: join(ROOT, 'web/src/styles.css') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    outdir: ASSETS,
    entryNames: '[name]-[hash]',
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
  const js = outputs.find((f) => f.endsWith('.js'));
  const css = outputs.find((f) => f.endsWith('.css'));
  if (js === undefined || css === undefined) throw new Error(`esbuild produced ${outputs.join(', ')}; expected one .js and one .css`);
  const html = readFileSync(join(ROOT, 'web/index.html'), 'utf8').replace('{{js}}', js).replace('{{css}}', css);
  writeFileSync(join(OUT, 'index.html'), html);
  return { js, css };
}

function size(file: string): string {
  const bytes = readFileSync(file);
  return `${(bytes.length / 1024).toFixed(1)} KiB (${(gzipSync(bytes).length / 1024).toFixed(1)} KiB gzipped)`;
}

if (import.meta.main) {
  const { js, css } = await buildWeb();
  process.stdout.write(`web: dist/web/assets/${js} ${size(join(ASSETS, js))}, ${css} ${size(join(ASSETS, css))}\n`);
}
