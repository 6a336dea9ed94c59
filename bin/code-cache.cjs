// Loads one of the lab's bundles (dist/cli.cjs, dist/worker-main.cjs) as require() would, with V8's
// code cache for it kept in dist/.code-cache/: a start after the first reads the functions the last
// one compiled instead of parsing and compiling 1–2 MB of JavaScript again (some 35 ms of a cpu
// sweep's start on 2 cores, `bench/cpu/time-to-answer.sh`). Node 20 has no compile cache of its own.
//
// A cache file is named for the bundle, the V8 that made it, the machine, and a hash of the bundle's
// bytes: V8 checks a cache's version and flags but of its source only the length, so a cache named
// for the bundle's size and time of change (which a copy or a package keeps for other bytes of the
// same length) ran the old code (test/main/cli/code-cache.test.ts). A rebuilt bundle or another
// runtime (Electron's) never reads a cache that is not its own; one that V8 refuses is compiled as
// usual. A cache is written only where none was read, whole (written aside, then renamed), when
// saveCodeCache() is called or the process exits; a folder that cannot be written to means no
// cache, nothing else. CLAB_CODE_CACHE=0 turns it off.
'use strict';
const Module = require('node:module');
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, readdirSync, renameSync, unlinkSync, writeFileSync } = require('node:fs');
const { basename, dirname, join } = require('node:path');
const vm = require('node:vm');

/** Bundles loaded in this process whose cache is still to be written: [script, folder, file name, prefix]. */
const pending = [];
const SAVE = Symbol.for('clab.saveCodeCache');

/** What became of the last bundle's cache: 'off', 'absent', 'accepted' or 'rejected' (for the tests). */
let lastOutcome = 'off';

/** The cache's file name for a bundle of these bytes, and the prefix this runtime's caches of it share. */
function cacheName(file, bytes) {
  const prefix = `${basename(file)}.${process.versions.v8}.${process.arch}.`;
  // SHA-256 of the CLI's 1.35 MB: 0.8 ms on this project's 2-core machine.
  return { prefix, name: `${prefix}${createHash('sha256').update(bytes).digest('hex').slice(0, 24)}.v8` };
}

/** require(file), with its code cache where one fits; `parent` is the requiring module. */
function requireWithCodeCache(file, parent) {
  if (process.env.CLAB_CODE_CACHE === '0') {
    lastOutcome = 'off';
    return require(file);
  }
  const dir = dirname(file);
  const folder = join(dir, '.code-cache');
  const bytes = readFileSync(file);
  const { prefix, name } = cacheName(file, bytes);
  let cachedData;
  try {
    cachedData = readFileSync(join(folder, name));
  } catch {
    cachedData = undefined;
  }
  const source = bytes.toString('utf8');
  const script = new vm.Script(Module.wrap(source.startsWith('#!') ? `//${source}` : source), {
    filename: file,
    cachedData,
    // An import() in the bundle resolves as it would under require() (Node 20 calls this experimental
    // when an import() runs; the bundles have none today).
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  lastOutcome = !cachedData ? 'absent' : script.cachedDataRejected ? 'rejected' : 'accepted';
  if (lastOutcome !== 'accepted') pending.push([script, folder, name, prefix]);

  const mod = new Module(file, parent);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(dir);
  Module._cache[file] = mod;
  const req = (id) => mod.require(id);
  req.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
  req.main = require.main;
  req.cache = Module._cache;
  req.extensions = Module._extensions;
  try {
    script.runInThisContext().call(mod.exports, mod.exports, req, mod, file, dir);
  } catch (e) {
    delete Module._cache[file];
    throw e;
  }
  mod.loaded = true;
  return mod.exports;
}

/**
 * Writes the caches this process still owes, of every function compiled so far; at most once each.
 * A rank calls it once its steps are done (it ends by a native exit, which runs no 'exit' handler).
 */
function saveCodeCache() {
  while (pending.length) {
    const [script, folder, name, prefix] = pending.shift();
    const tmp = join(folder, `${name}.${process.pid}.tmp`);
    try {
      const data = script.createCachedData();
      mkdirSync(folder, { recursive: true });
      writeFileSync(tmp, data);
      renameSync(tmp, join(folder, name));
      // This runtime's older caches of the same bundle: other bytes.
      for (const f of readdirSync(folder)) if (f.startsWith(prefix) && f.endsWith('.v8') && f !== name) unlinkSync(join(folder, f));
    } catch {
      try {
        unlinkSync(tmp);
      } catch {
        /* not written */
      }
    }
  }
}

process.once('exit', saveCodeCache);
globalThis[SAVE] = saveCodeCache;

module.exports = { requireWithCodeCache, saveCodeCache, lastOutcome: () => lastOutcome };
