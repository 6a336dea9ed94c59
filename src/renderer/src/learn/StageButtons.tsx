// The player's buttons as Learn's moves and its ring against tree both show them: back to the
// start, one stage back (where asked), play or pause, one stage forward.
import type { StagePlayer } from './useStagePlayer';

export function StageButtons({
  player,
  stages,
  testIdPrefix,
  playLabel,
  withBack = false,
}: {
  player: StagePlayer;
  stages: number;
  /** Each button's data-testid is `<prefix>-reset`, `-back`, `-play`, `-pause`, `-forward`. */
  testIdPrefix: string;
  playLabel: string;
  withBack?: boolean;
}) {
  return (
    <>
      <button type="button" className="small" data-testid={`${testIdPrefix}-reset`} onClick={player.reset} title="Back to the start">
        |◀
      </button>
      {withBack && (
        <button
          type="button"
          className="small"
          data-testid={`${testIdPrefix}-back`}
          onClick={player.back}
          disabled={player.t <= 0}
          title="One stage back"
        >
          ◀
        </button>
      )}
      {player.playing ? (
        <button type="button" className="small" data-testid={`${testIdPrefix}-pause`} onClick={player.pause}>
          ❚❚ pause
        </button>
      ) : (
        <button type="button" className="small primary" data-testid={`${testIdPrefix}-play`} onClick={player.play} disabled={!stages}>
          ▶ {playLabel}
        </button>
      )}
      <button
        type="button"
        className="small"
        data-testid={`${testIdPrefix}-forward`}
        onClick={player.forward}
        disabled={player.t >= stages}
        title="One stage forward"
      >
        ▶|
      </button>
    </>
  );
}
