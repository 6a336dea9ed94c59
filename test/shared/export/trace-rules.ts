// The Trace Event Format rules a trace must keep for Perfetto UI and chrome://tracing to show it
// whole: fields each phase needs, flow arrows whose two ends meet, slices that nest on their
// thread, names for every process and thread. Returns what is wrong (empty when nothing is), so
// unit tests and browser tests (a downloaded trace) check the same rules.

type Json = Record<string, unknown>;

const isObject = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);
const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isInt = (x: unknown): x is number => Number.isInteger(x);

const METADATA_NAMES = new Set(['process_name', 'process_sort_index', 'thread_name', 'thread_sort_index']);
const PHASES = new Set(['M', 'X', 's', 'f', 'C', 'i']);

/** Fields every event of a phase must carry, and of which type. */
function fieldProblems(e: Json): string[] {
  const out: string[] = [];
  const need = (field: string, ok: (x: unknown) => boolean, what: string) => {
    if (!ok(e[field])) out.push(`${field} must be ${what}`);
  };
  need('name', (x) => typeof x === 'string' && x.length > 0, 'a non-empty string');
  need('ph', (x) => typeof x === 'string' && PHASES.has(x), `one of ${[...PHASES].join(' ')}`);
  need('pid', isInt, 'an integer');
  switch (e.ph) {
    case 'M': {
      need('name', (x) => METADATA_NAMES.has(x as string), [...METADATA_NAMES].join(' or '));
      const args = e.args;
      const sorting = String(e.name).endsWith('sort_index');
      if (!isObject(args) || (sorting ? !isInt(args.sort_index) : typeof args.name !== 'string'))
        out.push(`args must hold ${sorting ? 'an integer sort_index' : 'a string name'}`);
      if (String(e.name).startsWith('thread_')) need('tid', isInt, 'an integer');
      break;
    }
    case 'X':
      need('tid', isInt, 'an integer');
      need('ts', (x) => isNumber(x) && x >= 0, 'a number ≥ 0');
      need('dur', (x) => isNumber(x) && x >= 0, 'a number ≥ 0');
      need('cat', (x) => typeof x === 'string', 'a string');
      break;
    case 's':
    case 'f':
      need('tid', isInt, 'an integer');
      need('ts', (x) => isNumber(x) && x >= 0, 'a number ≥ 0');
      need('cat', (x) => typeof x === 'string', 'a string');
      need('id', (x) => isInt(x) || typeof x === 'string', 'an integer or a string');
      if (e.ph === 'f' && e.bp !== undefined && e.bp !== 'e') out.push('bp must be "e" where given');
      break;
    case 'i':
      need('tid', isInt, 'an integer');
      need('ts', (x) => isNumber(x) && x >= 0, 'a number ≥ 0');
      need('cat', (x) => typeof x === 'string', 'a string');
      need('s', (x) => x === 't', '"t" (a mark on its thread)');
      break;
    case 'C':
      need('ts', (x) => isNumber(x) && x >= 0, 'a number ≥ 0');
      need('args', (x) => isObject(x) && Object.values(x).length > 0 && Object.values(x).every(isNumber), 'an object of numbers');
      break;
  }
  return out;
}

const threadKey = (e: Json) => `${e.pid}/${e.tid}`;

/** Every violated rule, one line each, naming the event by its position in traceEvents. */
export function traceRuleViolations(trace: unknown): string[] {
  if (!isObject(trace) || !Array.isArray(trace.traceEvents)) return ['the trace must be an object with a traceEvents array'];
  const problems: string[] = [];
  if (trace.displayTimeUnit !== undefined && trace.displayTimeUnit !== 'ms' && trace.displayTimeUnit !== 'ns')
    problems.push('displayTimeUnit must be "ms" or "ns"');
  const events = trace.traceEvents as unknown[];
  const valid: { i: number; e: Json }[] = [];
  for (const [i, e] of events.entries()) {
    const p = isObject(e) ? fieldProblems(e) : ['must be an object'];
    if (p.length) problems.push(...p.map((x) => `event ${i}: ${x}`));
    else valid.push({ i, e: e as Json });
  }

  // Metadata first, then slices, counters and marks in time order, then the flow events.
  let seenTimed = false;
  let seenFlow = false;
  let lastTs = -Infinity;
  for (const { i, e } of valid) {
    if (e.ph === 'M') {
      if (seenTimed) problems.push(`event ${i}: metadata after timed events`);
      continue;
    }
    seenTimed = true;
    if (e.ph === 's' || e.ph === 'f') {
      seenFlow = true;
      continue;
    }
    if (seenFlow) problems.push(`event ${i}: ${e.ph} event after the flow events`);
    if ((e.ts as number) < lastTs) problems.push(`event ${i}: ts ${e.ts} before the previous event's ${lastTs}`);
    lastTs = e.ts as number;
  }

  // Every process and thread that events use is named.
  const processNames = new Set(valid.filter(({ e }) => e.name === 'process_name').map(({ e }) => e.pid));
  const threadNames = new Set(valid.filter(({ e }) => e.name === 'thread_name').map(({ e }) => threadKey(e)));
  for (const { i, e } of valid) {
    if (e.ph === 'M') continue;
    if (!processNames.has(e.pid)) problems.push(`event ${i}: pid ${e.pid} has no process_name`);
    if (e.ph !== 'C' && !threadNames.has(threadKey(e))) problems.push(`event ${i}: pid ${e.pid} tid ${e.tid} has no thread_name`);
  }

  // Slices on a thread start in order and nest: each one ends before or with the one it starts in.
  const slices = new Map<string, { i: number; ts: number; end: number }[]>();
  for (const { i, e } of valid) {
    if (e.ph !== 'X') continue;
    const list = slices.get(threadKey(e)) ?? [];
    const ts = e.ts as number;
    const end = ts + (e.dur as number);
    const previous = list[list.length - 1];
    if (previous && ts < previous.ts)
      problems.push(`event ${i}: slice starts at ${ts}, before the previous slice on its thread (${previous.ts})`);
    const open = list.filter((s) => s.ts <= ts && ts < s.end);
    const parent = open[open.length - 1];
    if (parent && end > parent.end)
      problems.push(`event ${i}: slice [${ts}, ${end}] overlaps slice ${parent.i} [${parent.ts}, ${parent.end}] without nesting in it`);
    list.push({ i, ts, end });
    slices.set(threadKey(e), list);
  }

  // Flow arrows, bound as Chrome DevTools binds them (same pid, tid, cat and ts as an event, start
  // before end in the file) and as Perfetto does (sorted by time, each end inside the slice open
  // on its thread, no end before its start): one start, at a slice's start, then one end, no
  // earlier than the start, inside a slice of its thread and at the start of a slice or a mark.
  const flows = new Map<string, Json[]>();
  for (const { e } of valid) {
    if (e.ph !== 's' && e.ph !== 'f') continue;
    const key = `${e.name}/${e.id}`;
    flows.set(key, [...(flows.get(key) ?? []), e]);
  }
  const onThread = (e: Json, ph: string) =>
    valid.filter(({ e: x }) => x.ph === ph && x.pid === e.pid && x.tid === e.tid && x.cat === e.cat).map(({ e: x }) => x);
  const startsSlice = (e: Json) => onThread(e, 'X').find((x) => x.ts === e.ts);
  const marks = (e: Json) => onThread(e, 'i').find((x) => x.ts === e.ts);
  const inside = (e: Json) =>
    onThread(e, 'X').find((x) => (x.ts as number) <= (e.ts as number) && (e.ts as number) < (x.ts as number) + (x.dur as number));
  for (const [key, events] of flows) {
    const [s, f, ...rest] = events;
    if (s.ph !== 's' || f?.ph !== 'f' || rest.length) {
      problems.push(`flow ${key}: expected one start then one end, found ${events.map((e) => e.ph).join(' ')}`);
      continue;
    }
    if (!startsSlice(s)) problems.push(`flow ${key}: its start at ${s.ts} starts no ${s.cat} slice of pid ${s.pid} tid ${s.tid}`);
    if (!startsSlice(f) && !marks(f))
      problems.push(`flow ${key}: its end at ${f.ts} starts no ${f.cat} slice or mark of pid ${f.pid} tid ${f.tid}`);
    if (!inside(f) && !startsSlice(f)) problems.push(`flow ${key}: its end at ${f.ts} is inside no ${f.cat} slice of its thread`);
    if (f.bp !== 'e') problems.push(`flow ${key}: its end must bind to the enclosing slice ("bp": "e")`);
    if ((f.ts as number) < (s.ts as number)) problems.push(`flow ${key}: its end at ${f.ts} comes before its start at ${s.ts}`);
  }
  return problems;
}
