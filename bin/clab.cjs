#!/usr/bin/env node
// The installed `clab` command: the bundled CLI (built by `npm run build`).
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const bundle = join(__dirname, '..', 'dist', 'cli.cjs');
if (!existsSync(bundle)) {
  process.stderr.write('clab: the CLI is not built yet; run `npm run build` in ' + join(__dirname, '..') + '\n');
  process.exit(2);
}
// `clab run`'s ranks start now, while the bundle loads (early-ranks.cjs).
const early = require('./early-ranks.cjs').startEarlyRanks(process.argv, join(__dirname, '..', 'dist', 'worker.cjs'));
// The bundle, with V8's code cache of its last start (code-cache.cjs).
const cli = require('./code-cache.cjs').requireWithCodeCache(bundle, module);
if (early) cli.offerEarlyRanks(early);
cli
  .main()
  .catch((e) => {
    process.stderr.write(`clab: ${cli.visibleControls(String(e && e.stack ? e.stack : e))}\n`);
    process.exit(1);
  })
  .finally(() => early && early.release());
