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

export function TimelineToolbar(props: Props) {
  const { source, mode, choice, repeats, onMode, onChoice, onFit, onPng, onSvg, onSearch, fullscreen, onFullscreen, onHelp } = props;
  const compares = source.plan.compares;
  return (
    <div className="timeline-toolbar">
      {compares.length > 0 && (
        <div className="segmented" role="group" aria-label="Timeline view">
          <button
            type="button"
            className={mode === 'run' ? 'active' : ''}
            aria-pressed={mode === 'run'}
            data-testid="timeline-mode-run"
            onClick={() => onMode('run')}
          >
            Whole run
          </button>
          <button
            type="button"
            className={mode === 'compare' ? 'active' : ''}
            aria-pressed={mode === 'compare'}
            data-testid="timeline-mode-compare"
            onClick={() => onMode('compare')}
          >
            Compare
          </button>
        </div>
      )}
      {mode === 'compare' && choice && (
        <>
          <select
            aria-label="Compare"
            data-testid="timeline-compare"
            value={choice.compare}
            onChange={(e) => onChoice({ compare: Number(e.target.value), repeat: choice.repeat })}
          >
            {compares.map((c) => (
              <option key={c.index} value={c.index}>
                {c.label}
              </option>
            ))}
          </select>
          <select
            aria-label="Repeat"
            data-testid="timeline-repeat"
            value={choice.repeat}
            onChange={(e) => onChoice({ compare: choice.compare, repeat: Number(e.target.value) })}
          >
            {repeats.map((r) => (
              <option key={r} value={r}>
                {repeatLabel(r)}
              </option>
            ))}
          </select>
        </>
      )}
      <span className="spacer" />
      <button type="button" className="small" data-testid="timeline-search-button" title="Search slices (Ctrl+F or /)" onClick={onSearch}>
        Search
      </button>
      <button type="button" className="small" data-testid="timeline-fit" title="The whole run" onClick={onFit}>
        Fit
      </button>
      <button
        type="button"
        className="small"
        data-testid="timeline-fullscreen"
        aria-pressed={fullscreen}
        title={fullscreen ? 'Leave full screen (Shift+F or Esc)' : 'Full screen (Shift+F)'}
        onClick={onFullscreen}
      >
        {fullscreen ? 'Exit full screen' : 'Full screen'}
      </button>
      <button type="button" className="small" data-testid="timeline-png" title="The visible timeline as an image" onClick={onPng}>
        PNG
      </button>
      <button type="button" className="small" data-testid="timeline-svg" title="The visible timeline as an SVG picture" onClick={onSvg}>
        SVG
      </button>
      <button type="button" className="small" data-testid="timeline-help-button" aria-label="Keys" title="Keys (?)" onClick={onHelp}>
        ?
      </button>
    </div>
  );
}
