// A run record file as the benches' and GPU tests' plain-node scripts read it: either of its forms
// (one JSON object, or past 8192 events a JSON summary line and the packed run:
// src/shared/run/record/README.md), read and checked by clab's own reader
// (src/main/core/library/record-store.ts readRecord), which `npm run build` (scripts/bundle.mjs)
// bundles into dist/records.cjs so that these scripts run with plain node on a GPU machine.
//   const { readRecordFile } = require('…/bench/records.cjs');  readRecordFile('x.run.json') → the record
// Bad input throws one line naming the file and what is wrong with it.
'use strict';

const path = require('node:path');

const RECORDS = path.join(__dirname, '..', 'dist', 'records.cjs');
let records;
try {
  records = require(RECORDS);
} catch (e) {
  if (e.code !== 'MODULE_NOT_FOUND') throw e;
  throw new Error(`bench/records.cjs: ${RECORDS} is missing: run \`npm run build\` (or \`npm run build:cli\`) first`);
}

/** The run record in `file`, JSON or packed, checked as clab checks it. */
function readRecordFile(file) {
  if (typeof file !== 'string' || file === '')
    throw new Error(`bench/records.cjs: readRecordFile expects a record file's path, got ${JSON.stringify(file) ?? String(file)}`);
  return records.readRecordFile(file);
}

module.exports = { readRecordFile };
