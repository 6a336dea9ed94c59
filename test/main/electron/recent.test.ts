import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_RECENT, RecentFiles, withRecent } from '../../../src/main/electron/recent';
import { tempDir } from '../../setup/temp-dirs';

const store = () => join(tempDir('recent'), 'recent.json');

describe('recent files', () => {
  it('puts the newest first and keeps one entry per file', () => {
    expect(withRecent(['/a', '/b', '/c'], '/b')).toEqual(['/b', '/a', '/c']);
    expect(withRecent([], '/a')).toEqual(['/a']);
  });

  it(`keeps at most ${MAX_RECENT}`, () => {
    const many = Array.from({ length: MAX_RECENT }, (_, i) => `/f${i}`);
    const next = withRecent(many, '/new');
    expect(next).toHaveLength(MAX_RECENT);
    expect(next[0]).toBe('/new');
    expect(next).not.toContain(`/f${MAX_RECENT - 1}`);
  });

  it('persists across restarts, and remove and clear persist too', () => {
    const file = store();
    const recent = new RecentFiles(file);
    recent.add('/a.scenario.json');
    recent.add('/b.run.json');
    recent.add('/a.scenario.json');
    expect(new RecentFiles(file).list()).toEqual(['/a.scenario.json', '/b.run.json']);
    recent.remove('/b.run.json');
    expect(new RecentFiles(file).list()).toEqual(['/a.scenario.json']);
    recent.clear();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual([]);
  });

  it('starts empty from a missing or damaged list', () => {
    expect(new RecentFiles(store()).list()).toEqual([]);
    const damaged = store();
    writeFileSync(damaged, '{"not": "a list"}');
    expect(new RecentFiles(damaged).list()).toEqual([]);
    writeFileSync(damaged, '[1, 2');
    expect(new RecentFiles(damaged).list()).toEqual([]);
  });
});
