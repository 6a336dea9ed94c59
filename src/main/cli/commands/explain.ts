// `clab explain [op]`: what an operation does, what its `count` counts, its busbw factor and the
// teaching text, from the operation's descriptor; without an op, every op with its summary.
import { busFactorText, EXPLAINED_OPS, explainOp } from '../../../shared/ops/explain.js';
import { EXIT_OK, EXIT_USAGE, err, out, type RegisterCommand } from '../common.js';

const WIDTH = 96;

/** Words to lines of at most WIDTH columns, each starting with `indent`. */
function wrap(text: string, indent: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent.length + line.length + 1 + word.length > WIDTH) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines;
}

function explainCommand(op: string | undefined, flags: { json?: boolean }): number {
  if (op === undefined) {
    const width = Math.max(...EXPLAINED_OPS.map((o) => o.length));
    for (const o of EXPLAINED_OPS) out(`${o.padEnd(width)}  ${explainOp(o)!.summary}`);
    return EXIT_OK;
  }
  const e = explainOp(op);
  if (!e) {
    err(`clab: unknown operation "${op}"; expected one of ${EXPLAINED_OPS.join(', ')}`);
    return EXIT_USAGE;
  }
  if (flags.json) {
    out(JSON.stringify(e));
    return EXIT_OK;
  }
  out(`${e.op}: ${e.summary}`);
  out('');
  out(`  count   ${e.countMeans ?? 'none: the step moves JSON objects (`objects`), not a tensor'}`);
  out(`  busbw   ${e.busFactors ? `algbw × ${busFactorText(e.busFactors)}` : 'none: an object step is timed and checked but reports no bandwidth'}`);
  out('');
  for (const line of wrap(e.teaching, '  ')) out(line);
  return EXIT_OK;
}

export const registerExplain: RegisterCommand = (program, setExit) => {
  program
    .command('explain')
    .description('Explain an operation: what it does, what count means, its busbw factor, and what to learn from it.')
    .argument('[op]', 'an operation as a scenario names it (e.g. all_reduce); none lists them all')
    .option('--json', 'print the explanation as JSON')
    .action((op: string | undefined, flags: { json?: boolean }) => setExit(explainCommand(op, flags)));
};
