// The layers, checked by `npm run lint:layers` (part of `npm test`): who may import whom.
//   shared   — in rooms by floor (data ← ops ← scenario ← plan ← run ← results ← learn ← export),
//              each importing only its own floor and those below; no import circle anywhere in src;
//              pure TypeScript: imports nothing of ours outside src/shared, no Node builtin, and
//              of npm only zod and jsonc-parser (no DOM either: tsconfig.shared.json has no DOM lib)
//   addon    — the native addon's contract: of ours only shared
//   core     — src/main/core: no electron, none of its front doors, no renderer, worker or preload;
//              in rooms by floor (ground ← machine ← library ← run ← hosts ← service), none loose;
//              the run's coordinator (run/coordinator/) pure: of ours only shared and its handlers
//   run      — src/shared/run in rooms by floor (nccl ← rank ← record ← hosts ← api), none loose
//   doors    — src/main/{cli,serve,electron}: beside the core, not inside the renderer or worker
//   worker   — the rank process: nothing of src/main, renderer or preload
//   preload  — of ours only shared
//   renderer — of ours only shared: no main, core, addon, worker, preload, and no Node builtin
//   views    — each folder of src/renderer/src but the shell's (app, client, ui, editor, run) is a view:
//              it imports client/, ui/, its own folder and src/shared, never another view; ui/ imports
//              no view; the shell reaches the views only through their list, app/views.ts
// Type-only imports count too (tsPreCompilationDeps): a type is as much a dependency as a value.
const ours = '^src/';

// src/shared in rooms by floor, the ground first: a room may import its own floor and those below,
// never one above (the run record does not know how it is printed; the plan does not know the protocol).
const SHARED_FLOORS = ['data', 'ops', 'scenario', 'plan', 'run', 'results', 'learn', 'export'];
const floorRules = SHARED_FLOORS.slice(0, -1).map((floor, i) => ({
  name: `shared-floor-${floor}`,
  comment: `src/shared/${floor}/ stands on ${SHARED_FLOORS.slice(0, i + 1).join(', ')} only: not on ${SHARED_FLOORS.slice(i + 1).join(', ')}.`,
  severity: 'error',
  from: { path: `^src/shared/${floor}/` },
  to: { path: `^src/shared/(${SHARED_FLOORS.slice(i + 1).join('|')})/` },
}));

// Rooms with floors: src/main/core (the ground of files and clocks, the machine, the saved-runs
// library, the run, the hosts it reaches, the service and its front-door helpers) and src/shared/run
// (NCCL's own words, what a rank says, the record, the hosts' link, the API). A room stands on its
// own floor and those below it, never one above; every file lives in a room.
function floorsOf(prefix, floors, ruleName) {
  return floors.slice(0, -1).map((floor, i) => ({
    name: `${ruleName}-${floor}`,
    comment: `${prefix}${floor}/ stands on ${floors.slice(0, i + 1).join(', ')} only: not on ${floors.slice(i + 1).join(', ')}.`,
    severity: 'error',
    from: { path: `^${prefix}${floor}/` },
    to: { path: `^${prefix}(${floors.slice(i + 1).join('|')})/` },
  }));
}
function inRooms(prefix, floors, ruleName) {
  return {
    name: ruleName,
    comment: `Every file of ${prefix} lives in one of its rooms (${floors.join(', ')}), none loose at its top.`,
    severity: 'error',
    from: { path: '^src/' },
    to: { path: `^${prefix}[^/]+$` },
  };
}
const CORE_FLOORS = ['ground', 'machine', 'library', 'run', 'hosts', 'service'];
const RUN_FLOORS = ['nccl', 'rank', 'record', 'hosts', 'api'];
const roomRules = [
  ...floorsOf('src/main/core/', CORE_FLOORS, 'core-floor'),
  inRooms('src/main/core/', CORE_FLOORS, 'core-in-rooms'),
  ...floorsOf('src/shared/run/', RUN_FLOORS, 'run-floor'),
  inRooms('src/shared/run/', RUN_FLOORS, 'run-in-rooms'),
];

// The run's coordination, tested without a process: the coordinator and the handlers it holds.
const PURE_RUN = '^src/main/core/run/(coordinator/|(step-gates|watchdog|pair-cells|rank-failure)[.]ts$)';

// The renderer's folders that are not views: the shell (app), its two panes (editor, run), the one
// client, and the UI bits views share. Any other folder is a view, so a new view needs no line here.
const RENDERER = '^src/renderer/src/';
const RENDERER_SHELL = ['app', 'client', 'ui', 'editor', 'run'];
const VIEW_FOLDER = `${RENDERER}(?!(${RENDERER_SHELL.join('|')})/)[^/]+/`;

module.exports = {
  forbidden: [
    ...floorRules,
    ...roomRules,
    {
      name: 'shared-in-rooms',
      comment: `Every file of src/shared lives in one of its rooms (${SHARED_FLOORS.join(', ')}), none loose at its top or in another room.`,
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/shared/', pathNot: `^src/shared/(${SHARED_FLOORS.join('|')})/` },
    },
    {
      name: 'no-circular',
      comment: 'No import circle anywhere in src: a circle has no floor to stand on.',
      severity: 'error',
      from: { path: ours },
      to: { circular: true },
    },
    {
      name: 'shared-imports-only-shared',
      comment: 'src/shared is the code every process shares: it may not lean on any one of them.',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { path: ours, pathNot: '^src/shared/' },
    },
    {
      name: 'shared-no-node-builtins',
      comment: 'src/shared runs in the renderer too: no Node builtin.',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'shared-npm-allowlist',
      comment: 'src/shared may use only npm packages that run anywhere (zod, jsonc-parser); add one here on purpose.',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'],
        pathNot: '^node_modules/(zod|jsonc-parser)/',
      },
    },
    {
      name: 'addon-imports-only-shared',
      comment: 'The addon contract sits under the core and the worker alike.',
      severity: 'error',
      from: { path: '^src/addon/' },
      to: { path: ours, pathNot: '^src/(addon|shared)/' },
    },
    {
      name: 'core-no-electron',
      comment: 'The lab core is plain Node: the CLI and `clab serve` run it without Electron.',
      severity: 'error',
      from: { path: '^src/main/core/' },
      to: { path: '^(electron$|node_modules/electron/)' },
    },
    {
      name: 'core-not-its-doors-or-other-processes',
      comment:
        'The front doors (Electron shell, CLI, serve) call the core, never the other way; the renderer, worker and preload are other processes.',
      severity: 'error',
      from: { path: '^src/main/core/' },
      to: { path: '^src/(main/(cli|serve|electron)|renderer|worker|preload)/' },
    },
    {
      name: 'coordinator-pure',
      comment:
        "The run's coordinator (src/main/core/run/coordinator/) and the handlers of run/ it holds are pure: no Node builtin, no npm package, of ours only src/shared and each other. The driver (run/run.ts) owns the processes, the clock and the timers.",
      severity: 'error',
      from: { path: PURE_RUN },
      to: { pathNot: `^src/shared/|${PURE_RUN}` },
    },
    {
      name: 'doors-not-other-processes',
      comment: 'The CLI, serve and the Electron main reach the renderer only as built files, the worker only by forking it.',
      severity: 'error',
      from: { path: '^src/main/' },
      to: { path: '^src/(renderer|worker|preload)/' },
    },
    {
      name: 'worker-not-main',
      comment: 'The rank process and the lab core are siblings: they share src/shared and src/addon only.',
      severity: 'error',
      from: { path: '^src/worker/' },
      to: { path: '^src/(main|renderer|preload)/' },
    },
    {
      name: 'preload-imports-only-shared',
      comment: 'The preload is the one bridge object: electron and the shared contract, nothing else of ours.',
      severity: 'error',
      from: { path: '^src/preload/' },
      to: { path: ours, pathNot: '^src/(preload|shared)/' },
    },
    {
      name: 'renderer-imports-only-shared',
      comment: 'The renderer reaches the lab through its client only (IPC or WebSocket).',
      severity: 'error',
      from: { path: '^src/renderer/' },
      to: { path: '^src/(main|addon|worker|preload)/' },
    },
    {
      name: 'renderer-no-node-builtins',
      comment: 'The renderer is sandboxed and is also served to a plain browser: no Node builtin.',
      severity: 'error',
      from: { path: '^src/renderer/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'renderer-no-electron',
      comment: 'Electron reaches the renderer only through the preload (window.lab).',
      severity: 'error',
      from: { path: '^src/renderer/' },
      to: { path: '^(electron$|node_modules/electron/)' },
    },
    {
      name: 'view-imports-only-client-ui-shared',
      comment:
        'A view stands on the client, ui/ and src/shared only: what it needs of another view comes through the view context (ui/view.ts), what two views share lives in ui/.',
      severity: 'error',
      from: { path: `${RENDERER}([^/]+)/`, pathNot: `${RENDERER}(${RENDERER_SHELL.join('|')})/` },
      to: { path: ours, pathNot: [`${RENDERER}(client|ui)/`, `${RENDERER}$1/`, '^src/shared/'] },
    },
    {
      name: 'ui-imports-no-view',
      comment: 'ui/ is what views share: it imports the client and src/shared, never a view or the shell.',
      severity: 'error',
      from: { path: `${RENDERER}ui/` },
      to: { path: ours, pathNot: [`${RENDERER}(client|ui)/`, '^src/shared/'] },
    },
    {
      name: 'views-only-through-their-list',
      comment:
        'The shell lists the views (app/views.ts) and maps over the list: nothing else of the renderer imports a view, so a new view is its folder and a line in the list.',
      severity: 'error',
      from: { path: `${RENDERER}([^/]+)`, pathNot: `${RENDERER}app/views\\.ts$` },
      to: { path: VIEW_FOLDER, pathNot: `${RENDERER}$1/` },
    },
    {
      name: 'resolvable',
      comment: 'An import that does not resolve would hide from every rule above.',
      severity: 'error',
      from: { path: ours },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types'],
    },
    exclude: { path: '\\.d\\.ts$' },
  },
};
