// Above the timeline: where the run's wall time went, from the asking to the saved record (start,
// init, steps, save, the rest), as a bar whose parts are as wide as their share and say in words
// what they are and how long they took; the whole line as text below it, with what is unknown.
import type { RunRecord } from '../../../shared/run/record/record.js';
import { timeToAnswer, timeToAnswerLine } from '../../../shared/run/record/time-to-answer.js';
import { formatDuration } from '../ui/units';

interface Props {
  record: Pick<RunRecord, 'events' | 'logs' | 'timeMarks'>;
}

/** A part narrower than this share of the bar gives its words to its title and to the line below only. */
const LABELLED_SHARE = 0.08;

export function TimeToAnswerBar({ record }: Props) {
  const t = timeToAnswer(record);
  const known = t.parts.filter((p) => p.ns !== null && p.ns > 0);
  const total = known.reduce((sum, p) => sum + p.ns!, 0);
  const line = timeToAnswerLine(t);
  return (
    <section className="time-to-answer" aria-label="Time to answer" data-testid="time-to-answer">
      {total > 0 && (
        <ol className="time-to-answer-bar" aria-label={`Where the ${formatDuration(t.wallNs ?? total)} went`}>
          {known.map((p) => {
            const share = p.ns! / total;
            const text = `${p.name} ${formatDuration(p.ns)}`;
            return (
              <li key={p.name} className={`tta-part tta-${p.name}`} style={{ flexGrow: p.ns!, flexBasis: 0 }} title={text}>
                <span className={share >= LABELLED_SHARE ? undefined : 'tta-hidden'}>{text}</span>
              </li>
            );
          })}
        </ol>
      )}
      <p className="time-to-answer-line dim">{line}</p>
    </section>
  );
}
