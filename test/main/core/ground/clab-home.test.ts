// Where clab keeps its own files: CLAB_HOME, else ~/.clab; an empty CLAB_HOME is unset, never
// the folder clab was started from.
import { homedir, userInfo } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clabHome } from '../../../../src/main/core/ground/clab-home';
import { defaultPackedRunDir } from '../../../../src/main/core/library/packed-run-disk';
import { defaultTokenPath } from '../../../../src/main/core/hosts/token';

const saved = { CLAB_HOME: process.env.CLAB_HOME, HOME: process.env.HOME };
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe("clab's home folder", () => {
  it('puts the packed runs and the tokens under ~/.clab when CLAB_HOME is empty, not in the current folder', () => {
    process.env.CLAB_HOME = '';
    const home = join(homedir(), '.clab');
    expect(clabHome()).toBe(home);
    expect(defaultPackedRunDir()).toBe(join(home, 'cache', 'packed-runs'));
    expect(defaultTokenPath('r1')).toBe(join(home, 'tokens', 'r1.token'));
    process.env.CLAB_HOME = '  ';
    expect(defaultTokenPath('r1')).toBe(join(home, 'tokens', 'r1.token'));
  });

  it("takes the account's home folder where HOME is empty too", () => {
    process.env.CLAB_HOME = '';
    process.env.HOME = '';
    expect(isAbsolute(defaultPackedRunDir())).toBe(true);
    expect(defaultPackedRunDir()).toBe(join(userInfo().homedir, '.clab', 'cache', 'packed-runs'));
  });

  it('uses CLAB_HOME where it is set', () => {
    process.env.CLAB_HOME = '/srv/lab-home';
    expect(defaultPackedRunDir()).toBe('/srv/lab-home/cache/packed-runs');
    expect(defaultTokenPath('r2')).toBe('/srv/lab-home/tokens/r2.token');
  });
});
