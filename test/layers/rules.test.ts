// The layer rules of .dependency-cruiser.cjs can fail: a throwaway tree breaks each of them on
// purpose (one import a rule forbids), and `depcruise` with the project's own config must name
// every one. The real tree passing the same rules is `npm run lint:layers`, part of `npm test`.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../..');
const FLOORS = ['data', 'ops', 'scenario', 'plan', 'run', 'results', 'learn', 'export'];
// Rooms with floors inside src/main/core and src/shared/run: [prefix, rule name, floors].
// A floor's throwaway file; shared/run keeps its files in rooms, so its one sits in a room there.
const thing = (floor: string) => (floor === 'run' ? 'src/shared/run/api/run-thing.ts' : `src/shared/${floor}/${floor}-thing.ts`);
const ROOMS: [string, string, string[]][] = [
  ['src/main/core/', 'core-floor', ['ground', 'machine', 'library', 'run', 'hosts', 'service']],
  ['src/shared/run/', 'run-floor', ['nccl', 'rank', 'record', 'hosts', 'api']],
];

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

const tree = mkdtempSync(join(tmpdir(), 'clab-layers-'));
afterAll(() => rmSync(tree, { recursive: true, force: true }));

function write(file: string, text: string) {
  mkdirSync(dirname(join(tree, file)), { recursive: true });
  writeFileSync(join(tree, file), text);
}

function violations(): Violation[] {
  write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', strict: true } }));
  let out: string;
  try {
    out = execFileSync(
      process.execPath,
      [
        join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
        'src',
        '--config',
        join(ROOT, '.dependency-cruiser.cjs'),
        '--output-type',
        'json',
      ],
      { cwd: tree, encoding: 'utf8' },
    );
  } catch (e) {
    out = (e as { stdout: string }).stdout; // depcruise exits non-zero when it finds errors
  }
  return (JSON.parse(out) as { summary: { violations: Violation[] } }).summary.violations;
}

describe('the layer rules, each broken on purpose', () => {
  // Every floor imports the one above it; the top floor stands alone.
  FLOORS.forEach((floor, i) => {
    const above = FLOORS[i + 1];
    write(
      thing(floor),
      above
        ? `import { x } from '${relative(dirname(thing(floor)), thing(above)).replace(/\.ts$/, '.js')}';\nexport const y = x;\n`
        : 'export const x = 1;\n',
    );
  });
  // Each room of core and shared/run imports the room above it; the top room stands alone.
  for (const [prefix, , floors] of ROOMS) {
    floors.forEach((floor, i) => {
      const above = floors[i + 1];
      write(
        `${prefix}${floor}/${floor}-room.ts`,
        above ? `import { r } from '../${above}/${above}-room.js';\nexport const q = r;\n` : 'export const r = 1;\n',
      );
    });
  }
  write('src/shared/loose.ts', 'export const loose = 1;\n');
  write('src/main/core/run/uses-loose.ts', "import { loose } from '../../../shared/loose.js';\nexport const z = loose;\n");
  write('src/main/core/loose-core.ts', 'export const looseCore = 1;\n');
  write('src/main/core/service/uses-loose-core.ts', "import { looseCore } from '../loose-core.js';\nexport const w = looseCore;\n");
  write('src/shared/run/loose-run.ts', 'export const looseRun = 1;\n');
  write('src/shared/run/api/uses-loose-run.ts', "import { looseRun } from '../loose-run.js';\nexport const v = looseRun;\n");
  // The coordinator may import shared and its handlers; not Node, not a clock of the ground.
  write('src/main/core/run/step-gates.ts', 'export const gates = 1;\n');
  write(
    'src/main/core/run/coordinator/pure.ts',
    "import { gates } from '../step-gates.js';\nimport { x } from '../../../../shared/data/data-thing.js';\nexport const pure = gates + x;\n",
  );
  write(
    'src/main/core/run/coordinator/impure.ts',
    "import { EventEmitter } from 'node:events';\nimport { r } from '../../ground/ground-room.js';\nexport const impure = [EventEmitter, r];\n",
  );
  write('src/main/core/run/circle-a.ts', "import { b } from './circle-b.js';\nexport const a = () => b;\n");
  write('src/main/core/run/circle-b.ts', "import { a } from './circle-a.js';\nexport const b = () => a;\n");
  // The renderer: a view may use the client, ui/, its own folder and shared; the list may import views.
  write('src/renderer/src/client/index.ts', 'export const client = 1;\n');
  write('src/renderer/src/ui/units.ts', "import { x } from '../../../shared/export/export-thing.js';\nexport const units = x;\n");
  write(
    'src/renderer/src/learn/model.ts',
    "import { client } from '../client/index.js';\nimport { units } from '../ui/units.js';\nexport const learnable = client + units;\n",
  );
  write('src/renderer/src/learn/index.ts', "import { learnable } from './model.js';\nexport const learnView = learnable;\n");
  write('src/renderer/src/timeline/ticks.ts', 'export const ticks = 1;\n');
  write('src/renderer/src/timeline/step-details.ts', "import { learnable } from '../learn/model.js';\nexport const details = learnable;\n");
  write('src/renderer/src/ui/axis.ts', "import { ticks } from '../timeline/ticks.js';\nexport const axis = ticks;\n");
  write('src/renderer/src/app/views.ts', "import { learnView } from '../learn/index.js';\nexport const VIEWS = [learnView];\n");
  write('src/renderer/src/shell.ts', "import { learnable } from './learn/model.js';\nexport const shell = learnable;\n");
  const found = violations();
  const named = (rule: string) => found.filter((v) => v.rule.name === rule).map((v) => `${v.from} → ${v.to}`);

  it.each(FLOORS.slice(0, -1).map((floor, i) => [floor, FLOORS[i + 1]]))(
    'a file of shared/%s importing shared/%s breaks its floor rule',
    (floor, above) => {
      expect(named(`shared-floor-${floor}`)).toEqual([`${thing(floor)} → ${thing(above)}`]);
    },
  );

  it('a file loose at the top of src/shared breaks shared-in-rooms', () => {
    expect(named('shared-in-rooms')).toEqual(['src/main/core/run/uses-loose.ts → src/shared/loose.ts']);
  });

  const roomCases = ROOMS.flatMap(([prefix, rule, floors]) =>
    floors.slice(0, -1).map((floor, i) => [prefix, rule, floor, floors[i + 1]] as const),
  );
  it.each(roomCases)('a file of %s%s importing the room above breaks %s', (prefix, rule, floor, above) => {
    expect(named(`${rule}-${floor}`)).toEqual([`${prefix}${floor}/${floor}-room.ts → ${prefix}${above}/${above}-room.ts`]);
  });

  it('a file loose at the top of src/main/core breaks core-in-rooms', () => {
    expect(named('core-in-rooms')).toEqual(['src/main/core/service/uses-loose-core.ts → src/main/core/loose-core.ts']);
  });

  it('a file loose at the top of src/shared/run breaks run-in-rooms', () => {
    expect(named('run-in-rooms')).toEqual(['src/shared/run/api/uses-loose-run.ts → src/shared/run/loose-run.ts']);
  });

  it('the rooms in the test are the rooms of the config', () => {
    const config = createRequire(__filename)(join(ROOT, '.dependency-cruiser.cjs')) as { forbidden: { name: string }[] };
    for (const [, rule, floors] of ROOMS) {
      expect(config.forbidden.filter((r) => r.name.startsWith(`${rule}-`)).map((r) => r.name)).toEqual(
        floors.slice(0, -1).map((f) => `${rule}-${f}`),
      );
    }
  });

  it('the coordinator importing a Node builtin or the ground breaks coordinator-pure, its handlers and shared do not', () => {
    expect(named('coordinator-pure').sort()).toEqual([
      'src/main/core/run/coordinator/impure.ts → events',
      'src/main/core/run/coordinator/impure.ts → src/main/core/ground/ground-room.ts',
    ]);
  });

  it('two files importing each other break no-circular', () => {
    // depcruise names a circle once, at the import where it first closes.
    expect(named('no-circular')).toHaveLength(1);
    expect(named('no-circular')[0]).toMatch(/^src\/main\/core\/run\/circle-[ab]\.ts → src\/main\/core\/run\/circle-[ab]\.ts$/);
  });

  it('a view importing another view breaks view-imports-only-client-ui-shared', () => {
    expect(named('view-imports-only-client-ui-shared')).toEqual([
      'src/renderer/src/timeline/step-details.ts → src/renderer/src/learn/model.ts',
    ]);
  });

  it('ui/ importing a view breaks ui-imports-no-view', () => {
    expect(named('ui-imports-no-view')).toEqual(['src/renderer/src/ui/axis.ts → src/renderer/src/timeline/ticks.ts']);
  });

  it('a view imported from anywhere but the list breaks views-only-through-their-list', () => {
    expect(named('views-only-through-their-list').sort()).toEqual([
      'src/renderer/src/shell.ts → src/renderer/src/learn/model.ts',
      'src/renderer/src/timeline/step-details.ts → src/renderer/src/learn/model.ts',
      'src/renderer/src/ui/axis.ts → src/renderer/src/timeline/ticks.ts',
    ]);
  });

  it('the floors in the test are the floors of the config', () => {
    const config = createRequire(__filename)(join(ROOT, '.dependency-cruiser.cjs')) as { forbidden: { name: string }[] };
    expect(config.forbidden.filter((r) => r.name.startsWith('shared-floor-')).map((r) => r.name)).toEqual(
      FLOORS.slice(0, -1).map((f) => `shared-floor-${f}`),
    );
  });
});
