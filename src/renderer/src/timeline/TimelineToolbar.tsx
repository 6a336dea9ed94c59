// Whole run or compare blocks side by side (which compare, which repeat), search, back to the
// whole run, full screen, the PNG export and the list of keys: on one line, the selects giving
// up width first.
import type { CompareChoice } from './compare';
import type { TimelineSource } from './source';

export type TimelineMode = 'run' | 'compare';

interface Props {
  source: TimelineSource;
  mode: TimelineMode;
  choice: CompareChoice | null;
  repeats: number[];
  onMode(mode: TimelineMode): void;
  onChoice(choice: CompareChoice): void;
  onFit(): void;
  onPng(): void;
  onSvg(): void;
  onSearch(): void;
  fullscreen: boolean;
  onFullscreen(): void;
  onHelp(): void;
}

const repeatLabel = (r: number) => (r < 0 ? `warm-up ${-r}` : `repeat ${r + 1}`);

const MODES: readonly [TimelineMode, string][] = [
  ['run', 'Whole run'],
  ['compare', 'Compare'],
];

/** A select of numbered choices (which compare, which repeat). */
function ChoicePicker(props: {
  label: string;
  testId: string;
  value: number;
  options: readonly [number, string][];
  onPick(value: number): void;
}) {
  return (
    <select aria-label={props.label} data-testid={props.testId} value={props.value} onChange={(e) => props.onPick(Number(e.target.value))}>
      {props.options.map(([value, text]) => (
        <option key={value} value={value}>
          {text}
        </option>
      ))}
    </select>
  );
}

/** A small button at the toolbar's end: its title says what it does (and its key, where one does it too). */
interface ToolButton {
  testId: string;
  title: string;
  text: string;
  onClick(): void;
  label?: string;
  pressed?: boolean;
}

export function TimelineToolbar(props: Props) {
  const { source, mode, choice, repeats, onMode, onChoice, onFit, onPng, onSvg, onSearch, fullscreen, onFullscreen, onHelp } = props;
  const compares = source.plan.compares;
  const buttons: ToolButton[] = [
    { testId: 'timeline-search-button', title: 'Search slices (Ctrl+F or /)', text: 'Search', onClick: onSearch },
    { testId: 'timeline-fit', title: 'The whole run', text: 'Fit', onClick: onFit },
    {
      testId: 'timeline-fullscreen',
      title: fullscreen ? 'Leave full screen (Shift+F or Esc)' : 'Full screen (Shift+F)',
      text: fullscreen ? 'Exit full screen' : 'Full screen',
      onClick: onFullscreen,
      pressed: fullscreen,
    },
    { testId: 'timeline-png', title: 'The visible timeline as an image', text: 'PNG', onClick: onPng },
    { testId: 'timeline-svg', title: 'The visible timeline as an SVG picture', text: 'SVG', onClick: onSvg },
    { testId: 'timeline-help-button', title: 'Keys (?)', text: '?', onClick: onHelp, label: 'Keys' },
  ];
  return (
    <div className="timeline-toolbar">
      {compares.length > 0 && (
        <div className="segmented" role="group" aria-label="Timeline view">
          {MODES.map(([m, label]) => (
            <button
              key={m}
              type="button"
              className={mode === m ? 'active' : ''}
              aria-pressed={mode === m}
              data-testid={`timeline-mode-${m}`}
              onClick={() => onMode(m)}
            >
              {label}
            </button>
          ))}
        </div>
      )}
      {mode === 'compare' && choice && (
        <>
          <ChoicePicker
            label="Compare"
            testId="timeline-compare"
            value={choice.compare}
            options={compares.map((c) => [c.index, c.label])}
            onPick={(compare) => onChoice({ compare, repeat: choice.repeat })}
          />
          <ChoicePicker
            label="Repeat"
            testId="timeline-repeat"
            value={choice.repeat}
            options={repeats.map((r) => [r, repeatLabel(r)])}
            onPick={(repeat) => onChoice({ compare: choice.compare, repeat })}
          />
        </>
      )}
      <span className="spacer" />
      {buttons.map((b) => (
        <button
          key={b.testId}
          type="button"
          className="small"
          data-testid={b.testId}
          aria-label={b.label}
          aria-pressed={b.pressed}
          title={b.title}
          onClick={b.onClick}
        >
          {b.text}
        </button>
      ))}
    </div>
  );
}
