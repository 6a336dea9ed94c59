// What moved where, for one step of a run (live or saved): the ranks as columns with their input
// and output buffers, the collective's chunk schedule played stage by stage at the pace the step
// ran, and the outputs it arrives at held against the ones the run recorded. While a run in step
// mode waits before a step, its outputs are left for the learner to predict; Next runs it.
import { useEffect, useMemo, useState } from 'react';
import type { Template } from '../../../shared/run/api/api.js';
import { COLLECTIVE_DESCRIPTORS } from '../../../shared/ops/index.js';
import { DTYPE_INFO } from '../../../shared/data/dtypes.js';
import type { Plan } from '../../../shared/plan/types.js';
import type { Environment, StepRecord } from '../../../shared/run/record/record.js';
import { rankDevice } from '../../../shared/plan/per-rank.js';
import type { Lesson } from '../../../shared/learn/lessons.js';
import { Lessons, LessonText } from './Lessons';
import { diagramWidth, MovesDiagram } from './MovesDiagram';
import { learnable, learnSubject, learnTitle, type LearnModel } from './model';
import { learnPace, paceText, runSlowdown, type LearnPace } from './pace';
import { PaceAxis } from './PaceAxis';
import { StageButtons } from './StageButtons';
import { useStagePlayer } from './useStagePlayer';
import { RingVsTree } from './RingVsTree';

export interface LearnSource {
  plan: Plan;
  world: number;
  steps: StepRecord[];
  /** Where the run ran (a saved or ended run's record): the link β the ring and tree costs use. */
  environment?: Environment;
}

interface Props {
  source: LearnSource | null;
  /** Changes whenever a live run's steps grow (they are appended in place). */
  version: number;
  /** The step a run in step mode waits before, or null. */
  paused: number | null;
  /** Runs the paused step (step mode). */
  onNext?(): void;
  templates: Template[];
  onOpenLesson(templateId: string): void;
  /** A step asked for from elsewhere (the timeline's step details). */
  requested?: number | null;
  /** The lesson of the scenario the run shows (a mistake made on purpose), if it has one. */
  lesson?: Lesson | null;
}

export function LearnView({ source, version, paused, onNext, templates, onOpenLesson, requested = null, lesson = null }: Props) {
  const steps = useMemo(() => source?.plan.steps.filter(learnable) ?? [], [source]);
  const records = useMemo(() => new Map(source?.steps.map((s) => [s.index, s]) ?? []), [source, version]);
  const [chosen, setChosen] = useState<number | null>(requested);
  useEffect(() => {
    if (paused !== null && steps.some((s) => s.index === paused)) setChosen(paused);
  }, [paused, steps]);
  const selected = steps.find((s) => s.index === chosen) ?? steps.find((s) => records.has(s.index)) ?? steps[0];
  const record = selected ? (records.get(selected.index) ?? null) : null;
  const subject = useMemo(() => (selected && source ? learnSubject(selected, record, source.world) : null), [selected, record, source]);
  const slowdown = useMemo(() => runSlowdown(source?.steps ?? []), [source, version]);

  return (
    <div className="learn-view" data-testid="learn-view">
      <div className="learn-toolbar">
        <label>
          Step{' '}
          <select
            data-testid="learn-step-select"
            value={selected?.index ?? ''}
            onChange={(e) => setChosen(Number(e.target.value))}
            disabled={!steps.length}
          >
            {steps.map((s) => (
              <option key={s.index} value={s.index}>
                #{s.index} {learnTitle(s)}
                {s.origin.kind === 'compare' ? ` (${s.origin.variant})` : ''}
                {records.has(s.index) ? '' : paused === s.index ? ' (next)' : ' (not run)'}
              </option>
            ))}
          </select>
        </label>
        {paused !== null && (
          <span className="learn-paused" data-testid="learn-paused">
            Paused before #{paused} {source?.plan.steps[paused]?.label}
            {onNext && (
              <button type="button" className="primary" data-testid="learn-next-step" onClick={onNext}>
                Next step ▶
              </button>
            )}
          </span>
        )}
      </div>
      {source && lesson && (
        <section className="learn-lesson learn-run-lesson" data-testid="learn-run-lesson" aria-label="This run's lesson">
          <h3>This run makes a mistake on purpose</h3>
          <LessonText lesson={lesson} />
        </section>
      )}
      {!source && (
        <p className="empty">Nothing to show yet: run a scenario (tick “step mode” to go one step at a time), or open a saved run.</p>
      )}
      {source && !steps.length && <p className="empty">This run has no collective or send/recv step to show.</p>}
      {subject?.kind === 'none' && <p className="empty">{subject.reason}</p>}
      {subject?.kind === 'model' && (
        <StepMoves
          key={`${subject.model.planStep.index}:${record ? 'run' : 'next'}`}
          model={subject.model}
          waiting={paused === subject.model.planStep.index}
          pace={learnPace(record, subject.model.schedule.stages.length, slowdown)}
        />
      )}
      {source && selected?.action.kind === 'collective' && COLLECTIVE_DESCRIPTORS[selected.action.op].native === 'all_reduce' && (
        <RingVsTree
          world={source.world}
          bytes={
            record?.bytes ??
            COLLECTIVE_DESCRIPTORS[selected.action.op].algBytes(
              selected.action.count,
              DTYPE_INFO[selected.action.dtype].bytes,
              source.world,
            )
          }
          environment={source.environment ?? null}
          devices={Array.from({ length: source.world }, (_, r) => rankDevice(source.plan, r))}
          ncclAlgo={record?.nccl?.algo}
        />
      )}
      <Lessons templates={templates} onOpen={onOpenLesson} />
    </div>
  );
}

/** waiting: the run waits before this step (step mode); Next runs it. */
function StepMoves({ model, pace, waiting }: { model: LearnModel; pace: LearnPace; waiting: boolean }) {
  const [revealed, setRevealed] = useState(false);
  const hideOutcome = model.record === null && !revealed;
  const { schedule } = model;
  const stages = schedule.stages.length;
  const player = useStagePlayer(stages, pace.stageMs, model);
  const k = Math.min(Math.floor(player.t), stages);
  const a = model.planStep.action;
  const descriptor = a.kind === 'collective' ? COLLECTIVE_DESCRIPTORS[a.op] : null;
  const width = diagramWidth(schedule.world);
  return (
    <section className="learn-step" aria-label="What moved where">
      <header>
        <h3>
          #{model.planStep.index} {learnTitle(model.planStep)}
        </h3>
        {descriptor && <p>{descriptor.summary}</p>}
        <p className="dim" data-testid="learn-summary">
          {schedule.summary}
        </p>
        {descriptor && (
          <details>
            <summary>More about {a.kind === 'collective' ? a.op : 'it'}</summary>
            <p>{descriptor.teaching}</p>
          </details>
        )}
      </header>
      {model.disagreeing.length > 0 && (
        <p className="learn-warn">
          ⚠ rank{model.disagreeing.length > 1 ? 's' : ''} {model.disagreeing.join(', ')} ran something else in this step (a deliberate
          mistake): the moves shown are the step's own, the recorded outputs are what the ranks really got.
        </p>
      )}
      <div className="learn-controls">
        {hideOutcome ? (
          <>
            <span data-testid="learn-predict">
              Each rank's input is shown. What will each rank hold after {model.planStep.label}? Predict it, then{' '}
              {waiting ? 'run the step (Next step)' : 'run the scenario'} or
            </span>
            <button type="button" data-testid="learn-reveal" onClick={() => setRevealed(true)}>
              show the moves now
            </button>
          </>
        ) : (
          <>
            <StageButtons player={player} stages={stages} testIdPrefix="learn" playLabel="play" withBack />
            <span className="learn-stage" data-testid="learn-stage-label">
              {stages === 0
                ? 'nothing moves on one rank'
                : k < stages
                  ? `stage ${k + 1} of ${stages}: ${schedule.stages[k].label}`
                  : `done: all ${stages} stage${stages > 1 ? 's' : ''}`}
            </span>
          </>
        )}
      </div>
      <div className="learn-scroll">
        <MovesDiagram model={model} t={player.t} hideOutcome={hideOutcome} />
        {pace.iterationUs !== null && !hideOutcome && (
          <PaceAxis width={width} iterationUs={pace.iterationUs} at={stages ? player.t / stages : 1} />
        )}
      </div>
      {!hideOutcome && (
        <p className="learn-pace dim" data-testid="learn-pace">
          {paceText(pace, stages)}
        </p>
      )}
      {!hideOutcome && (
        <p className="learn-check" data-testid="learn-check">
          {checkText(model)}
        </p>
      )}
      <p className="learn-legend dim">
        Values:{' '}
        {model.inputsFrom === 'record'
          ? "each rank's input as the run recorded it"
          : "from each rank's data pattern (as the rank fills its input)"}
        , up to 32 elements; longer buffers show which chunk of which rank (r1·c2) and its elements. Solid outline: the rank's output.
        Dashed: where partial results pass through. Coloured squares: whose chunks a slot holds;{' '}
        {model.redop ? `${model.redop} combines them element by element.` : 'nothing is reduced in this op.'}
      </p>
    </section>
  );
}

function checkText(model: LearnModel): string {
  if (model.record === null) return "Computed from each rank's data pattern: the step has not run yet.";
  const differ = model.agrees.flatMap((ok, rank) => (ok === false ? [rank] : []));
  if (differ.length) {
    return `✗ rank${differ.length > 1 ? 's' : ''} ${differ.join(', ')} recorded another output than these moves give (${differ.map((r) => `rank ${r} got ${model.record!.ranks.find((x) => x.rank === r)?.output}`).join('; ')}): see the step's diagnosis in Results.`;
  }
  const compared = model.agrees.filter((ok) => ok === true).length;
  return compared
    ? `✓ The moves end with exactly the outputs the run recorded, on ${compared} rank${compared > 1 ? 's' : ''}.`
    : 'The outputs are too long to compare value by value here: the chunks show where each part went.';
}
