// Bundles the CLI (with the lab core), the rank process, the benches' statistics and record reader into self-contained CommonJS files
// in dist/, so they run from carried files alone (no node_modules), e.g. on the GPU machine;
// then writes the scenario JSON Schema generated from the TypeScript source of truth.
import { build } from 'esbuild';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// zod's classic API hands out its ~45 locales as one namespace (z.locales), which the bundler keeps
// whole: some 360 KB of each bundle that every start parses. The lab reads English alone
// (src/shared/scenario/messages.ts), so the bundles get a namespace of `en` only.
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (a) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(a.importer) ? { path: 'zod-locales-en', namespace: 'zod-english-only' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, () => ({
      contents: "export { default as en } from 'zod/v4/locales/en.js';",
      resolveDir: fileURLToPath(new URL('..', import.meta.url)),
      loader: 'js',
    }));
  },
};

// 'module' first: jsonc-parser's UMD entry hides its requires from the bundler.
const common = {
  plugins: [zodEnglishOnly],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  mainFields: ['module', 'main'],
  sourcemap: 'linked',
  logLevel: 'warning',
};
await Promise.all([
  build({ ...common, entryPoints: ['src/main/cli/clab.ts'], outfile: 'dist/cli.cjs' }),
  // The rank process: a small entry that begins the GPU's CUDA context, then its bundle (src/worker/entry.ts).
  build({ ...common, entryPoints: ['src/worker/entry.ts'], outfile: 'dist/worker.cjs' }),
  build({ ...common, entryPoints: ['src/worker/main.ts'], outfile: 'dist/worker-main.cjs' }),
  // The paired statistics, for the GPU benches' plain-node scripts (bench/gpu/paired.cjs).
  build({ ...common, entryPoints: ['src/shared/data/stats.ts'], outfile: 'dist/stats.cjs' }),
  // clab's own reader of a record file in either form (JSON, or packed past 8192 events), for the
  // benches' and GPU tests' scripts (bench/records.cjs).
  build({
    ...common,
    stdin: {
      contents: "export { readRecord as readRecordFile } from './src/main/core/library/record-store.ts';",
      resolveDir: fileURLToPath(new URL('..', import.meta.url)),
      sourcefile: 'records.ts',
      loader: 'ts',
    },
    outfile: 'dist/records.cjs',
  }),
  build({ ...common, format: 'esm', sourcemap: false, entryPoints: ['src/shared/scenario/json-schema.ts'], outfile: 'dist/schema.mjs' }),
]);
const { scenarioJsonSchema } = await import(new URL('../dist/schema.mjs', import.meta.url).href);
writeFileSync('schemas/scenario.schema.json', `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`);
