// `clab explain [op]`: what an operation does, what its `count` counts, its busbw factor and the
// teaching text, from the operation's descriptor, then a worked example: every rank's input and
// output for a small call; without an op, every op with its summary, then the topics beside them
// (`launch`: host- against graph-launched timing, learn/launch.ts; `inside-nccl`: what the NCCL
// plug-ins show and how a scenario asks for them, run/nccl/inside-nccl.ts).
import { InvalidArgumentError } from 'commander';
import { exampleRows, ExampleError, workedExample, type WorkedExample } from '../../../shared/learn/worked-example.js';
import { busFactorText, EXPLAINED_OPS, explainOp } from '../../../shared/ops/explain.js';
import { wrapWords } from '../../../shared/data/wrap.js';
import { LAUNCH_SUMMARY, LAUNCH_TEACHING } from '../../../shared/ops/launch.js';
import { INSIDE_NCCL_SUMMARY, INSIDE_NCCL_TEACHING } from '../../../shared/run/nccl/inside-nccl.js';
import { nearestName } from '../../../shared/scenario/messages.js';
import { EXIT_OK, EXIT_USAGE, err, out, rankCount, type RegisterCommand } from '../common.js';

const WIDTH = 96;

interface ExplainFlags {
  json?: boolean;
  ranks?: number;
  count?: number;
  root?: number;
}

/** A whole number as typed; its bounds depend on the op and the world, and the example checks them. */
const wholeNumber = (v: string) => {
  if (!/^\d+$/.test(v.trim())) throw new InvalidArgumentError('expected a whole number');
  return Number(v);
};

function printExample(example: WorkedExample): void {
  const { heading, rows } = exampleRows(example);
  for (const line of wrapWords(`Worked example, ${heading}.`, WIDTH, '  ')) out(line);
  out('');
  for (const [label, text] of rows) {
    const first = `    ${label}  `;
    for (const line of wrapWords(text, WIDTH, first, ' '.repeat(first.length))) out(line);
  }
}

/** What `clab explain` teaches beside the operations: each topic's summary and text. */
const TOPICS: Record<string, { summary: string; teaching: readonly string[] }> = {
  'inside-nccl': { summary: INSIDE_NCCL_SUMMARY, teaching: INSIDE_NCCL_TEACHING },
  launch: { summary: LAUNCH_SUMMARY, teaching: LAUNCH_TEACHING },
};
const NAMES = [...EXPLAINED_OPS, ...Object.keys(TOPICS)];

function explainTopic(topic: string, flags: ExplainFlags): number {
  const { summary, teaching } = TOPICS[topic];
  if (flags.json) {
    out(JSON.stringify({ topic, summary, teaching }));
    return EXIT_OK;
  }
  for (const line of wrapWords(`${topic}: ${summary}`, WIDTH, '')) out(line);
  for (const paragraph of teaching) {
    out('');
    for (const line of wrapWords(paragraph, WIDTH, '  ')) out(line);
  }
  return EXIT_OK;
}

function explainCommand(op: string | undefined, flags: ExplainFlags): number {
  if (op === undefined) {
    const width = Math.max(...NAMES.map((o) => o.length));
    for (const o of EXPLAINED_OPS) out(`${o.padEnd(width)}  ${explainOp(o)!.summary}`);
    for (const [topic, { summary }] of Object.entries(TOPICS)) out(`${topic.padEnd(width)}  ${summary}`);
    return EXIT_OK;
  }
  if (Object.hasOwn(TOPICS, op)) return explainTopic(op, flags);
  const e = explainOp(op);
  if (!e) {
    const meant = nearestName(op, NAMES);
    const known = `expected one of ${NAMES.join(', ')}`;
    err(`clab: unknown operation "${op}"${meant ? `: did you mean ${meant}? (${known})` : `; ${known}`}`);
    return EXIT_USAGE;
  }
  let example: WorkedExample;
  try {
    example = workedExample({ op, ranks: flags.ranks, count: flags.count, root: flags.root });
  } catch (x) {
    if (!(x instanceof ExampleError)) throw x;
    err(`clab: ${x.message}`);
    return EXIT_USAGE;
  }
  if (flags.json) {
    out(JSON.stringify({ ...e, example }));
    return EXIT_OK;
  }
  out(`${e.op}: ${e.summary}`);
  out('');
  out(`  count   ${e.countMeans ?? 'none: the step moves JSON objects (`objects`), not a tensor'}`);
  out(
    `  busbw   ${e.busFactors ? `algbw × ${busFactorText(e.busFactors)}` : 'none: an object step is timed and checked but reports no bandwidth'}`,
  );
  if (e.busFactors) out('  launch  "host" (default) or "graph" (nccl): see `clab explain launch`');
  out('');
  for (const line of wrapWords(e.teaching, WIDTH, '  ')) out(line);
  out('');
  printExample(example);
  return EXIT_OK;
}

export const registerExplain: RegisterCommand = (program, setExit) => {
  program
    .command('explain')
    .description(
      'Explain an operation: what it does, what count means, its busbw factor, and what to learn from it; or a topic (launch: host- against graph-launched timing).',
    )
    .argument('[op]', 'an operation as a scenario names it (e.g. all_reduce), or a topic (launch); none lists them all')
    .option('--ranks <n>', 'ranks in the worked example, 1 to 64 (default 4)', rankCount)
    .option(
      '--count <c>',
      "the worked example's count (default 4; where the op splits the tensor, the smallest multiple of the ranks from 4)",
      wholeNumber,
    )
    .option('--root <r>', "the worked example's root, for rooted operations (default 0)", wholeNumber)
    .option('--json', 'print the explanation and the worked example as JSON')
    .action((op: string | undefined, flags: ExplainFlags) => setExit(explainCommand(op, flags)));
};
