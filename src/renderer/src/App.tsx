// The lab's window: the scenario editor on the left (its width set by the splitter, or hidden);
// on the right the run controls, and below them the views (app/views.ts) as tabs, each drawn from
// one view context. Everything goes through the one LabClient.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ApiEvent } from '../../shared/run/api/api.js';
import type { RunRecord } from '../../shared/run/record/record.js';
import { Header } from './app/Header';
import { Splitter } from './app/Splitter';
import { Tabs } from './app/Tabs';
import { useDropFiles } from './app/useDropFiles';
import { useLabInfo } from './app/useLabInfo';
import { useViewTabs } from './app/useViewTabs';
import { useWorkspaceLayout } from './app/useWorkspaceLayout';
import { VIEWS } from './app/views';
import { useLabClient } from './client';
import {
  EditorStatus,
  EditorTitle,
  EditorToolbar,
  ScenarioEditor,
  recordDocument,
  replayBackendNote,
  scenarioWorld,
  templateDocument,
  useScenarioValidation,
  useFileActions,
  useScenarioDocument,
  type MarkerSummary,
} from './editor';
import { buildRunRequest, remoteProblem, RunPanel, useRun, useRunSettings } from './run';
import type { ShownRecord, ShownRun, ViewContext } from './ui/view';

const DEFAULT_TEMPLATE = 'all-in-one.scenario.json';

export function App() {
  const client = useLabClient();
  const { connection, machine, templates, error } = useLabInfo(client);
  const scenario = useScenarioDocument();
  const settings = useRunSettings(machine);
  const tabs = useViewTabs(VIEWS);
  const [layout, setLayout] = useWorkspaceLayout();
  const [shown, setShown] = useState<ShownRecord | null>(null);
  const [runsVersion, setRunsVersion] = useState(0);
  const [requestedAb, setRequestedAb] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [markers, setMarkers] = useState<MarkerSummary>({ errors: 0, warnings: 0, first: null });
  const [reveal, setReveal] = useState<{ line: number; column: number } | null>(null);
  const templatePicker = useRef<HTMLSelectElement>(null);

  const run = useRun(client, (record, savedTo) => {
    setShown({ record, source: { kind: 'live', savedTo } });
    tabs.mark('record');
    setRunsVersion((v) => v + 1);
  });

  const { open: openDocument } = scenario;
  const { bring, forgetRequest } = tabs;
  const showReplay = useCallback(
    (record: RunRecord, from: string) => {
      setShown({ record, source: { kind: 'replay', from } });
      // What ran, in the editor: a new document, so the saved run's scenario can be changed and run
      // again. The focus stays where the user opened the run: the record is what they asked to see.
      if (record.scenario !== null && typeof record.scenario === 'object') openDocument(recordDocument(record, from), false);
      bring('record');
    },
    [bring, openDocument],
  );

  const files = useFileActions(client, scenario, showReplay, setNotice);
  const recordedOn = scenario.doc?.recordedOn;
  const replayNote = useMemo(() => replayBackendNote(recordedOn, machine), [recordedOn, machine]);
  const problems = useScenarioValidation(
    client,
    scenario.text,
    scenario.doc?.path ?? null,
    settings.ranks,
    settings.backend,
    connection === 'open',
    replayNote,
  );
  const world = useMemo(() => scenarioWorld(scenario.text), [scenario.text]);

  const { forgetRefusal, catchUp } = run;
  // A run may have moved on, or ended, while the connection was down.
  useEffect(() => {
    if (connection === 'open') void catchUp();
  }, [connection, catchUp]);
  useEffect(() => forgetRefusal(), [scenario.generation, forgetRefusal]);

  const openTemplate = useCallback(
    (id: string, chosen = true) => {
      const template = templates.find((t) => t.id === id);
      if (template) scenario.open(templateDocument(template), chosen);
    },
    [templates, scenario.open],
  );

  useEffect(() => {
    if (!scenario.doc && templates.length)
      openTemplate(templates.some((t) => t.id === DEFAULT_TEMPLATE) ? DEFAULT_TEMPLATE : templates[0].id, false);
  }, [scenario.doc, templates, openTemplate]);

  const { live } = run.state;
  // While a run goes, the views show it as its steps end; afterwards, the run that ended or was opened.
  const shownBase = useMemo(() => {
    if (run.busy && live) {
      const source = { plan: live.plan, world: live.plan.world, steps: live.steps, events: live.events, compares: [] };
      return {
        key: `live:${live.runId}`,
        source,
        live: true,
        name: scenario.doc?.name.replace(/\.scenario\.json$/, '') ?? 'run',
        version: live.version,
      };
    }
    if (!shown) return null;
    const name = (shown.record.scenario as { name?: unknown } | null)?.name;
    return {
      key: `${shown.source.kind}:${shown.record.id}`,
      source: shown.record,
      live: false,
      name: typeof name === 'string' ? name : 'run',
      version: 0,
    };
  }, [run.busy, live, shown, scenario.doc]);
  // Apart, so that typing in the editor while a run goes leaves the run's source as it is.
  const liveText = shownBase?.live ? scenario.text : null;
  const shownRun = useMemo((): ShownRun | null => {
    if (!shownBase) return null;
    return { ...shownBase, scenarioText: liveText ?? JSON.stringify(shown?.record.scenario ?? null) };
  }, [shownBase, liveText, shown]);

  const { busy, start } = run;
  const startRun = useCallback(() => {
    if (!scenario.doc || busy || remoteProblem(settings.remote)) return;
    // In step mode the run waits before its first step: show it where the learner predicts it.
    bring(settings.stepMode ? 'step-run-started' : 'run-started');
    forgetRequest();
    void start(
      // A document never saved to a path still has a name (a template's, a replay's): the record keeps it.
      buildRunRequest(scenario.text, scenario.doc.path ?? scenario.doc.name, {
        backend: settings.backend,
        ranks: settings.ranks,
        stepMode: settings.stepMode,
        remote: settings.remote,
        nccl: settings.nccl,
      }),
    );
  }, [
    scenario.doc,
    scenario.text,
    settings.backend,
    settings.ranks,
    settings.stepMode,
    settings.remote,
    settings.nccl,
    busy,
    start,
    bring,
    forgetRequest,
  ]);

  const openRun = useCallback(
    async (path: string) => {
      try {
        showReplay(await client.call('openRun', { path }), path);
        // A notice about a file refused before is over once one opens.
        setNotice(null);
      } catch (e) {
        setNotice((e as Error).message);
      }
    },
    [client, showReplay],
  );

  const onEvent = useRef<(event: ApiEvent) => void>(() => undefined);
  onEvent.current = (event) => {
    run.handleEvent(event);
    if (event.type === 'open-file') files.openOpened(event.file, true);
    if (event.type !== 'menu') return;
    if (event.action === 'run') startRun();
    else if (event.action === 'stop') void run.stop();
    else if (event.action === 'save') void files.save();
    else if (event.action === 'save-as') void files.saveAs();
    else if (event.templateId) openTemplate(event.templateId);
    else templatePicker.current?.focus();
  };
  useEffect(() => client.onEvent((event) => onEvent.current(event)), [client]);

  useDropFiles(useCallback((dropped: File[]) => void files.openPicked(dropped), [files.openPicked]));

  useEffect(() => {
    const keys = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
        e.preventDefault();
        startRun();
      }
    };
    window.addEventListener('keydown', keys);
    return () => window.removeEventListener('keydown', keys);
  }, [startRun]);

  const context: ViewContext = {
    client,
    run: shownRun,
    record: shown,
    log: run.state.log,
    paused: run.busy ? run.state.paused : null,
    next: () => void run.next(),
    templates,
    openTemplate,
    openRun: (path) => void openRun(path),
    savedRunsVersion: runsVersion,
    requestedAb,
    abShown: () => setRequestedAb(null),
    requestedStep: tabs.requestedStep,
    stepViews: tabs.stepViews,
    openStep: tabs.openStep,
  };
  const View = tabs.active.component;

  return (
    <div className="app">
      <Header machine={machine} connection={connection}>
        <EditorToolbar
          templates={templates}
          fileDialogs={client.capabilities.fileDialogs}
          templatePicker={templatePicker}
          files={files}
          onTemplate={openTemplate}
        />
      </Header>
      {(notice || error) && (
        <div className="notice" role="alert" data-testid="notice">
          {notice ?? error}
          {notice && (
            <button type="button" className="link" onClick={() => setNotice(null)}>
              dismiss
            </button>
          )}
        </div>
      )}
      <main
        className="workspace"
        style={{
          gridTemplateColumns: layout.editorCollapsed
            ? '0 var(--splitter) minmax(0, 1fr)'
            : `calc((100% - var(--splitter)) * ${layout.editorShare}) var(--splitter) minmax(0, 1fr)`,
        }}
      >
        <section
          id="scenario-editor-pane"
          className={layout.editorCollapsed ? 'editor-pane collapsed' : 'editor-pane'}
          aria-label="Scenario"
        >
          <EditorTitle name={scenario.doc?.name ?? ''} dirty={scenario.dirty} onRevert={scenario.revert} />
          <ScenarioEditor
            name={scenario.doc?.name ?? 'untitled.scenario.json'}
            text={scenario.text}
            generation={scenario.generation}
            focusOnLoad={scenario.chosen}
            problems={problems}
            onChange={scenario.edit}
            onRun={startRun}
            onSave={() => void files.save()}
            onMarkers={setMarkers}
            reveal={reveal}
          />
          <EditorStatus markers={markers} />
        </section>
        <Splitter layout={layout} onLayout={setLayout} />
        <section className="side-pane">
          <RunPanel
            machine={machine}
            settings={settings}
            state={run.state}
            scenarioWorld={world}
            canRun={connection === 'open' && scenario.doc !== null}
            onRun={startRun}
            onStop={() => void run.stop()}
            onNext={() => void run.next()}
            onReveal={(line, column) => setReveal({ line, column })}
            onShowResults={() => bring('record')}
            client={client}
            abRequest={
              connection === 'open' && scenario.doc
                ? { text: scenario.text, file: scenario.doc.path ?? null, backend: settings.backend, ranks: settings.ranks }
                : null
            }
            onOpenAb={(path) => {
              setRequestedAb(path);
              tabs.select('runs');
            }}
          />
          <Tabs views={VIEWS} active={tabs.active.id} fresh={tabs.fresh} onSelect={tabs.select} />
          <div className="tab-body">
            <View key={tabs.active.id} ctx={context} />
          </div>
        </section>
      </main>
    </div>
  );
}
