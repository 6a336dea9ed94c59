#!/usr/bin/env node
// Drives `clab serve`'s WebSocket API as the app does, without a browser (the GPU machine has
// none): machine, checkBackend, startRun on N ranks, the run's events until it ends, the record.
// Prints what came back, one line each, and exits 0 when the run passed on the backend asked for.
//
//   node --experimental-websocket test/gpu/serve-api.cjs [--backend nccl] [--ranks 2] [--scenario FILE]
// (Node 22 has WebSocket without the flag.) Starts its own `clab serve --port 0` and stops it.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const backend = arg('--backend', 'nccl');
const ranks = Number(arg('--ranks', '2'));
const scenarioFile = arg('--scenario', path.join(root, 'scenarios/all-in-one.scenario.json'));
const API_VERSION = 1;
const say = (text) => console.log(`serve-api: ${text}`);

async function main() {
  if (typeof WebSocket === 'undefined')
    throw new Error('no WebSocket in this Node: run with --experimental-websocket (Node 20) or Node 22');
  const server = spawn(process.execPath, [path.join(root, 'bin/clab.cjs'), 'serve', '--port', '0'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const m = /http:\/\/\S+\?token=\S+/.exec(out);
      if (m) resolve(new URL(m[0]));
    });
    server.on('exit', (code) => reject(new Error(`clab serve exited (${code}) before printing its URL: ${out}`)));
    setTimeout(() => reject(new Error('clab serve printed no URL within 20 s')), 20_000).unref();
  });
  say(`clab serve at ${url.origin}`);
  const ws = new WebSocket(`ws://${url.host}/api?token=${url.searchParams.get('token')}`, { headers: { Origin: url.origin } });
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = (e) => reject(new Error(`socket: ${e.message}`));
  });
  let id = 0;
  const pending = new Map();
  const events = [];
  let ended;
  const runEnd = new Promise((resolve) => {
    ended = resolve;
  });
  ws.onmessage = (m) => {
    const msg = JSON.parse(String(m.data));
    if (msg.type === 'result') {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.ok) p.resolve(msg.value);
      else p.reject(new Error(msg.error));
    } else if (msg.type === 'event') {
      events.push(msg.event);
      if (msg.event.type === 'run-end') ended(msg.event);
    }
  };
  const call = (method, params = {}) =>
    new Promise((resolve, reject) => {
      pending.set(++id, { resolve, reject });
      ws.send(JSON.stringify({ type: 'call', v: API_VERSION, id, call: { method, params } }));
    });
  try {
    const machine = await call('machine');
    say(
      `machine: host ${machine.host}, ${machine.cpus} cpus, nccl ${machine.backends.nccl.available ? 'available' : `unavailable (${machine.backends.nccl.reason})`}, ${machine.gpus.length} GPU(s)`,
    );
    for (const g of machine.gpus) say(`  GPU ${JSON.stringify(g)}`);
    for (const l of machine.links ?? []) say(`  link ${JSON.stringify(l)}`);
    const check = await call('checkBackend', { backend, world: ranks, devices: null });
    say(`checkBackend(${backend}, ${ranks} ranks): ${JSON.stringify(check)}`);
    const text = fs.readFileSync(scenarioFile, 'utf8');
    const started = await call('startRun', { text, file: scenarioFile, backend, ranks });
    if (!started.ok) throw new Error(`startRun refused: ${JSON.stringify(started).slice(0, 500)}`);
    say(`startRun: run ${started.runId}, ${started.plan?.steps?.length ?? '?'} steps on ${ranks} ranks`);
    const end = await Promise.race([
      runEnd,
      new Promise((_, reject) => setTimeout(() => reject(new Error('no run-end within 300 s')), 300_000).unref()),
    ]);
    const count = (type) => events.filter((e) => e.type === type).length;
    say(`events: ${count('run-step')} run-step, ${count('run-log')} run-log, ${count('run-end')} run-end`);
    const r = end.record;
    say(
      `record: status ${r.status}, backend ${r.environment.backend}, ${r.steps.length} steps, ${r.events.length} timeline events, GPUs ${r.environment.gpus.map((g) => `${g.index} ${g.name} ${g.busId}`).join('; ') || 'none'}, saved to ${end.savedTo}`,
    );
    const firstRank = r.steps
      .find((s) => s.ranks.length)
      ?.ranks.map((x) => `[Rank ${x.rank}] ${x.output ?? x.note ?? ''}`)
      .join(' ');
    say(`first step: ${firstRank}`);
    const ok = r.status === 'passed' && r.environment.backend === backend;
    say(ok ? 'PASS' : `FAIL: ${r.error?.message ?? r.status}`);
    return ok ? 0 : 1;
  } finally {
    ws.close();
    server.kill('SIGTERM');
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    say(`FAIL: ${e.message}`);
    process.exit(1);
  },
);
