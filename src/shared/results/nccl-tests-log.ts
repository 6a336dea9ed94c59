// An nccl-tests text log (what its programs print on stdout), read as nccl-tests 2.19 prints it
// (src/util.cu: writeDeviceReport, writeResultHeader, writeBenchmarkLine*): the version and
// program lines, the device lines ("#  Rank  0 Group  0 Pid 1234 on host device  0 [0000:07:00]
// NAME"), the column header ("#  size  count  type  redop  root  time  algbw  busbw #wrong …",
// with the -I columns and the -S time stamp where printed), then one row per size. NCCL's own
// INFO and WARN lines between them are passed over; any other line is refused, naming it.
import { REDOPS, type Redop } from '../data/reduce.js';
import { dtypeOfNcclTests, NCCL_TESTS_NO_REDOP, NCCL_TESTS_PROGRAMS, type NcclTestsProgram } from './nccl-tests-names.js';
import {
  NCCL_TESTS_LIMITS,
  NcclTestsReadError,
  type NcclTestsDevice,
  type NcclTestsHalf,
  type NcclTestsResults,
  type NcclTestsRow,
} from './nccl-tests-results.js';

const RANK_LINE = /^#\s+Rank\s+(\d+)\s+Group\s+(\d+)\s+Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)\s+\[([^\]]*)\]\s*(.*)$/;
const VERSION_LINE = /^# nccl-tests version (\S+)(?: nccl-headers=(\d+))?(?: nccl-library=(\d+))?/;
const PROGRAM_LINE = /^# Collective test (starting|concluded): (\S+)\s*$/;
const CONFIG_LINE = /^# nThread \d+ nGpus \d+ minBytes \d+ maxBytes \d+ step: (\d+)\((factor|bytes)\) warmup iters: (\d+) iters: (\d+)/;
/** NCCL's debug lines (NCCL_DEBUG=INFO/WARN): "host:pid:tid [dev] NCCL INFO …". */
const NCCL_DEBUG_LINE = /^\S+:\d+:\d+ \[\d+\] NCCL (INFO|WARN|TRACE|ERROR)\b/;
/** A time, bandwidth or i_* figure as getFloatStr prints it: fixed, or exponent where it is too wide. */
const FIGURE = /^-?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

const HALF_COLUMNS = ['time', 'algbw', 'busbw', '#wrong'];
const PER_ITER_COLUMNS = ['i_min', 'i_max', 'i_p99', 'i_cv%'];

interface Columns {
  perIter: boolean;
  cpuTime: boolean;
  timestamp: boolean;
}

/** The column header's tokens after "#": which columns the rows have. Null where the line is not the header. */
function headerColumns(tokens: string[]): Columns | null {
  if (tokens.slice(0, 5).join(' ') !== 'size count type redop root') return null;
  const timeWord = tokens[5];
  if (timeWord !== 'time' && timeWord !== 'cputime') return null;
  const half = (perIter: boolean) => [timeWord, ...HALF_COLUMNS.slice(1), ...(perIter ? PER_ITER_COLUMNS : [])];
  for (const perIter of [false, true]) {
    const expected = ['size', 'count', 'type', 'redop', 'root', ...half(perIter), ...half(perIter)];
    const rest = tokens.slice(expected.length);
    if (expected.every((t, i) => tokens[i] === t) && (rest.length === 0 || (rest.length === 1 && rest[0] === 'timestamp')))
      return { perIter, cpuTime: timeWord === 'cputime', timestamp: rest.length === 1 };
  }
  return null;
}

const isProgram = (name: string): name is NcclTestsProgram => Object.hasOwn(NCCL_TESTS_PROGRAMS, name);

export interface LogOptions {
  /** The program, for a log from before nccl-tests printed "# Collective test starting:" (2.14). */
  program?: NcclTestsProgram;
}

/** Reads an nccl-tests text log; throws NcclTestsReadError naming `file`, the line and what was expected there. */
export function readNcclTestsLog(file: string, text: string, options: LogOptions = {}): NcclTestsResults {
  const fail = (line: number, message: string): never => {
    throw new NcclTestsReadError(`${file}: line ${line}: ${message}`);
  };
  let version: string | null = null;
  let ncclVersion: number | null = null;
  let program: NcclTestsProgram | null = null;
  let config: { stepFactor: number | null; warmup: number; iters: number } | null = null;
  let columns: Columns | null = null;
  const devices: NcclTestsDevice[] = [];
  const rows: NcclTestsRow[] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const n = i + 1;
    if (raw.length > NCCL_TESTS_LIMITS.lineChars) fail(n, `expected a line of at most ${NCCL_TESTS_LIMITS.lineChars} characters`);
    const line = raw.trimEnd();
    if (line === '' || NCCL_DEBUG_LINE.test(line)) continue;
    if (line.startsWith('#')) {
      const version_ = VERSION_LINE.exec(line);
      if (version_) {
        version = version_[1];
        ncclVersion = version_[3] ? Number(version_[3]) : null;
        continue;
      }
      const started = PROGRAM_LINE.exec(line);
      if (started) {
        const name = started[2].replace(/^.*\//, '');
        if (!isProgram(name))
          fail(
            n,
            `expected one of nccl-tests' programs the lab's sweeps run (${Object.keys(NCCL_TESTS_PROGRAMS).join(', ')}), not ${JSON.stringify(name)}`,
          );
        if (program !== null && program !== name) fail(n, `expected one program's log; this one also says ${name} after ${program}`);
        program = name as NcclTestsProgram;
        continue;
      }
      const c = CONFIG_LINE.exec(line);
      if (c) {
        config = { stepFactor: c[2] === 'factor' ? Number(c[1]) : null, warmup: Number(c[3]), iters: Number(c[4]) };
        continue;
      }
      const rank = RANK_LINE.exec(line);
      if (rank) {
        if (Number(rank[1]) !== devices.length) fail(n, `expected the device line of rank ${devices.length}, not rank ${rank[1]}`);
        devices.push({ rank: Number(rank[1]), hostname: rank[4], device: Number(rank[5]), busId: rank[6], name: rank[7] });
        continue;
      }
      const head = headerColumns(line.slice(1).trim().split(/\s+/));
      if (head) {
        if (columns) fail(n, 'expected one table of results; this is a second column header');
        columns = head;
      }
      // Any other comment line (the units line, "out-of-place in-place", notes, the footer) says nothing read here.
      continue;
    }
    if (!columns)
      fail(n, `expected nccl-tests' column header ("#  size  count  type  redop  root  time  algbw  busbw #wrong …") before the first row`);
    rows.push(row(line, n, columns!, fail));
    if (rows.length > NCCL_TESTS_LIMITS.results) fail(n, `expected at most ${NCCL_TESTS_LIMITS.results} sizes`);
  }
  const last = lines.length;
  const chosen = program ?? options.program ?? null;
  if (chosen === null)
    fail(
      last,
      'expected "# Collective test starting: PROGRAM" (nccl-tests 2.14 and later print it); for an older log, say which program: --op all_reduce_perf',
    );
  if (options.program && program && options.program !== program) fail(last, `the log is of ${program}, not ${options.program}`);
  if (!columns) fail(last, `expected nccl-tests' column header ("#  size  count  type  redop  root  time  algbw  busbw #wrong …")`);
  if (rows.length === 0) fail(last, 'expected at least one row of results under the column header');
  if (devices.length === 0)
    fail(last, 'expected the device lines ("#  Rank  0 Group  0 Pid … on HOST device 0 [BUS] NAME") that say how many ranks ran');
  return {
    source: 'nccl-tests text log',
    program: chosen!,
    version,
    ncclVersion,
    startTime: null,
    devices,
    warmup: config?.warmup ?? null,
    iters: config?.iters ?? null,
    stepFactor: config?.stepFactor ?? null,
    cpuTime: columns!.cpuTime,
    env: {},
    rows,
  };
}

/** One row: size, count, type, redop, root, then each half's figures as the header said. */
function row(line: string, n: number, columns: Columns, fail: (line: number, message: string) => never): NcclTestsRow {
  const tokens = line.trim().split(/\s+/);
  const perHalf = HALF_COLUMNS.length + (columns.perIter ? PER_ITER_COLUMNS.length : 0);
  // -S prints "%Y-%m-%d %H:%M:%S": two tokens.
  const expected = 5 + 2 * perHalf + (columns.timestamp ? 2 : 0);
  if (tokens.length !== expected)
    fail(
      n,
      `expected a row of ${expected} columns as the header says (size count type redop root, then each half's ${HALF_COLUMNS.join(' ')}${columns.perIter ? ` ${PER_ITER_COLUMNS.join(' ')}` : ''}), not ${tokens.length}`,
    );
  const whole = (i: number, what: string): number => {
    const t = tokens[i];
    if (!/^\d{1,16}$/.test(t)) fail(n, `expected the ${what} as a whole number, not ${JSON.stringify(t)}`);
    return Number(t);
  };
  const figure = (i: number, what: string): number => {
    const t = tokens[i];
    if (!FIGURE.test(t) || !Number.isFinite(Number(t))) fail(n, `expected the ${what} as a number, not ${JSON.stringify(t)}`);
    return Number(t);
  };
  const dtype = dtypeOfNcclTests(tokens[2]);
  if (!dtype)
    fail(n, `expected an element type nccl-tests names (float, half, bfloat16, double, int8, …), not ${JSON.stringify(tokens[2])}`);
  if (tokens[3] !== NCCL_TESTS_NO_REDOP && !(REDOPS as readonly string[]).includes(tokens[3]))
    fail(n, `expected a reduction op the lab has (${REDOPS.join(', ')}) or none, not ${JSON.stringify(tokens[3])}`);
  if (!/^-?\d{1,6}$/.test(tokens[4])) fail(n, `expected the root as a rank or -1, not ${JSON.stringify(tokens[4])}`);
  const half = (start: number, which: string): NcclTestsHalf => {
    const wrong = tokens[start + 3];
    if (wrong !== 'N/A' && !/^\d{1,16}$/.test(wrong))
      fail(n, `expected the ${which} #wrong as a count or N/A, not ${JSON.stringify(wrong)}`);
    return {
      timeUs: figure(start, `${which} time`),
      algbw: figure(start + 1, `${which} algbw`),
      busbw: figure(start + 2, `${which} busbw`),
      wrong: wrong === 'N/A' ? null : Number(wrong),
    };
  };
  return {
    at: `line ${n}`,
    size: whole(0, 'size in bytes'),
    count: whole(1, 'count of elements'),
    dtype: dtype!,
    redop: tokens[3] === NCCL_TESTS_NO_REDOP ? null : (tokens[3] as Redop),
    root: Number(tokens[4]),
    outOfPlace: half(5, 'out-of-place'),
    inPlace: half(5 + perHalf, 'in-place'),
  };
}
