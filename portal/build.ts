// Builds the portal into portal/dist: one hashed JS bundle and stylesheet (esbuild, Preact's JSX),
// an index.html naming them (no inline script or style: the CSP forbids both), a .br and a .gz of
// each, and the label
// registry of src/kube as a module the bundle imports (virtual:labels), so the forms know every
// label's type and meaning. `npm start` and `npm test` run it when portal/dist is missing or stale
// (scripts/portal-build.mjs); `tsx portal/build.ts` by hand.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { labelRegistry } from './labels-registry.js';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
const assets = join(dist, 'assets');

export async function buildPortal(stamp?: string): Promise<{ files: string[] }> {
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(assets, { recursive: true });
  const result = await build({
    entryPoints: { app: join(here, 'src', 'main.tsx') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022', 'chrome120', 'firefox120', 'safari17'],
    outdir: assets,
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
    loader: { '.svg': 'file' },
    plugins: [
      {
        name: 'labels',
        setup(b) {
          b.onResolve({ filter: /^virtual:labels$/ }, () => ({ path: 'labels', namespace: 'virtual' }));
          b.onLoad({ filter: /.*/, namespace: 'virtual' }, () => ({ contents: JSON.stringify(labelRegistry()), loader: 'json' }));
        },
      },
    ],
  });
  const outputs = Object.keys(result.metafile.outputs).map((f) => basename(f));
  const js = outputs.find((f) => f.endsWith('.js'))!;
  const css = outputs.find((f) => f.endsWith('.css'))!;
  const icon = readFileSync(join(here, 'favicon.svg'));
  const iconName = `favicon-${(await import('node:crypto')).createHash('sha256').update(icon).digest('hex').slice(0, 10)}.svg`;
  writeFileSync(join(assets, iconName), icon);
  const html = readFileSync(join(here, 'index.html'), 'utf8')
    .replace('%CSS%', `/ui/assets/${css}`)
    .replace('%JS%', `/ui/assets/${js}`)
    .replace('%ICON%', `/ui/assets/${iconName}`);
  writeFileSync(join(dist, 'index.html'), html);
  // Precompressed twins (brotli at its best, gzip at 9): the API sends one by Accept-Encoding.
  for (const file of [join(dist, 'index.html'), ...[js, css, iconName].map((f) => join(assets, f))]) {
    const raw = readFileSync(file);
    writeFileSync(`${file}.br`, brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }));
    writeFileSync(`${file}.gz`, gzipSync(raw, { level: 9 }));
  }
  if (stamp) writeFileSync(join(dist, '.build-stamp'), stamp);
  return { files: [js, css, iconName] };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { files } = await buildPortal(process.argv[2]);
  console.log(`[portal] built ${files.join(', ')}`);
}
