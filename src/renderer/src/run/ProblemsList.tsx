// Why the lab refused to run the scenario: every problem with its place in the file.
import type { FileProblemInfo } from '../../../shared/run/api/api.js';

interface Props {
  problems: FileProblemInfo[];
  onReveal(line: number, column: number): void;
}

export function ProblemsList({ problems, onReveal }: Props) {
  return (
    <div className="problems" role="alert">
      <p className="problems-title">
        The scenario has {problems.length} problem{problems.length === 1 ? '' : 's'}; nothing ran.
      </p>
      <ul data-testid="problems">
        {problems.map((p, i) => (
          <li key={i} data-testid="problem">
            <button type="button" className="link" onClick={() => onReveal(p.line, p.column)} title="Show in the editor">
              {p.line}:{p.column}
            </button>{' '}
            {p.path && <code>{p.path}</code>} {p.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
