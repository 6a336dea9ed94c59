// A view of the side pane, as the shell sees it: each view folder exports one descriptor, and every
// view is drawn from the one context below. The shell (App) lists the descriptors (app/views.ts)
// and builds the context; a view reaches the lab, the run shown and the other views through it.
import type { ComponentType } from 'react';
import type { Template } from '../../../shared/run/api/api.js';
import type { PlanStep } from '../../../shared/plan/types.js';
import type { RunRecord } from '../../../shared/run/record/record.js';
import type { LabClient } from '../client';

/** What the views read of a run: a saved record, or a live run's record as it grows (whose environment is not known yet). */
export type RunSource = Pick<RunRecord, 'plan' | 'world' | 'steps' | 'events' | 'compares'>;

/** The run the views show: the live one while it goes, else the one last finished or opened. */
export interface ShownRun {
  /** Another run, another key. */
  key: string;
  source: RunSource;
  live: boolean;
  /** The scenario's name: names the files made from the run. */
  name: string;
  /** Changes whenever a live run's steps grow (they are appended in place). */
  version: number;
  /** The scenario as it ran (a live run: the editor's text). */
  scenarioText: string;
}

export type RecordSource = { kind: 'live'; savedTo: string | null } | { kind: 'replay'; from: string };

/** A finished run's record: one that ended here, or one opened from a file (a replay). */
export interface ShownRecord {
  record: RunRecord;
  source: RecordSource;
}

export type LogTone = 'pass' | 'fail' | 'info' | 'timing' | 'error';

export interface LogEntry {
  id: number;
  text: string;
  tone: LogTone;
}

/** A view that can show a step another view points at. */
export interface StepView {
  id: string;
  label: string;
}

export interface ViewContext {
  client: LabClient;
  run: ShownRun | null;
  record: ShownRecord | null;
  /** The live run's log, one entry per line. */
  log: LogEntry[];
  /** The step a run in step mode waits before, or null. */
  paused: number | null;
  /** Step mode: runs the step the run waits before. */
  next(): void;
  templates: Template[];
  /** Opens a template in the editor. */
  openTemplate(id: string): void;
  /** Opens a saved run (a replay). */
  openRun(path: string): void;
  /** Changes when the saved runs may have changed (a run ended). */
  savedRunsVersion: number;
  /** An A/B file the run panel asked Saved runs to open (null: none); `abShown` once it is. */
  requestedAb: string | null;
  abShown(): void;
  /** The step another view asked this one to show (openStep), or null. */
  requestedStep: number | null;
  /** The views that can show this step. */
  stepViews(step: PlanStep): StepView[];
  /** Shows a step in another view, and that view. */
  openStep(view: string, step: number): void;
}

export interface ViewProps {
  ctx: ViewContext;
}

/**
 * When the shell brings a view forward: a run starts (in step mode or not); a run's record is there
 * (selected when a saved run is opened or the results are asked for; marked new when a run ends).
 */
export type ViewMoment = 'run-started' | 'step-run-started' | 'record';

export interface ViewDescriptor {
  /** Names its tab (data-testid `tab-<id>`). */
  id: string;
  label: string;
  component: ComponentType<ViewProps>;
  /** The moments the shell brings this view forward at; the first view listing one gets it. */
  moments?: readonly ViewMoment[];
  /** Steps this view can show when another view points at one (openStep), and the words of that link. */
  showsStep?: { label: string; accepts(step: PlanStep): boolean };
}
