// Where the native addon is looked for: where CLAB_NATIVE_ADDON points, beside a bundle (a carried
// build), else in the package's build folder. One list for the addon's loader (src/addon/addon.ts,
// which bundles this file) and for bin/early-ranks.cjs, which must find the same build to give its
// ranks what the core would (bin/early-context.cjs). Plain CommonJS, no dependencies.
'use strict';
const { join, resolve } = require('node:path');

const ADDON = 'clab_native.node';

/** The places the addon may be, first to last, for a bundle in `baseDir` (dist/) under `env`. */
function addonCandidates(baseDir, env = process.env) {
  const fromEnv = env.CLAB_NATIVE_ADDON;
  return [
    ...(fromEnv ? [resolve(fromEnv)] : []),
    join(baseDir, ADDON),
    join(baseDir, '..', 'build', 'native', 'Release', ADDON),
    join(baseDir, '..', '..', 'build', 'native', 'Release', ADDON),
  ];
}

module.exports = { addonCandidates, ADDON };
