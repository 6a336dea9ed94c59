// Plays a schedule's stages: a position t in [0, stages] (stage floor(t), a transfer under way
// for t's fraction), advanced by animation frames at `stageMs` per stage while playing.
import { useCallback, useEffect, useRef, useState } from 'react';

export interface StagePlayer {
  /** Stages done, plus the fraction of the one under way. */
  t: number;
  playing: boolean;
  play(): void;
  pause(): void;
  forward(): void;
  back(): void;
  reset(): void;
}

export function useStagePlayer(stages: number, stageMs: number, resetKey: unknown): StagePlayer {
  const [t, setT] = useState(0);
  const [playing, setPlaying] = useState(false);
  const frame = useRef<number | null>(null);
  // The frame loop's own copy of t, so a frame never reads a stale one.
  const position = useRef(0);
  position.current = t;

  useEffect(() => {
    setT(0);
    setPlaying(false);
  }, [resetKey]);

  useEffect(() => {
    if (!playing) return;
    // A frame's timestamp is when the frame began, which may be before now: time runs from the first frame.
    let last: number | null = null;
    const tick = (now: number) => {
      position.current = Math.min(stages, position.current + Math.max(0, now - (last ?? now)) / stageMs);
      last = now;
      setT(position.current);
      if (position.current >= stages) setPlaying(false);
      else frame.current = requestAnimationFrame(tick);
    };
    frame.current = requestAnimationFrame(tick);
    return () => {
      if (frame.current !== null) cancelAnimationFrame(frame.current);
    };
  }, [playing, stages, stageMs]);

  const play = useCallback(() => {
    setT((x) => (x >= stages ? 0 : x));
    setPlaying(stages > 0);
  }, [stages]);
  const pause = useCallback(() => setPlaying(false), []);
  const forward = useCallback(() => {
    setPlaying(false);
    setT((x) => Math.min(stages, Math.floor(x) + 1));
  }, [stages]);
  const back = useCallback(() => {
    setPlaying(false);
    setT((x) => Math.max(0, Math.ceil(x) - 1));
  }, []);
  const reset = useCallback(() => {
    setPlaying(false);
    setT(0);
  }, []);
  return { t, playing, play, pause, forward, back, reset };
}
