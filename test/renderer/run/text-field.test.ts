// A folded section's text fields bound to its fields by key: id under the section's, value, change
// of that key alone, and the section's disabled state.
import { describe, expect, it } from 'vitest';
import { textFieldsOf } from '../../../src/renderer/src/run/TextField';
import { REMOTE_OFF, type RemoteFields } from '../../../src/renderer/src/run/request';

describe('textFieldsOf', () => {
  it('gives a key its own id, value and change, and the section’s disabled state', () => {
    const changes: Partial<RemoteFields>[] = [];
    const field = textFieldsOf(':r1:', { ...REMOTE_OFF, launch: 'mpirun -np 2' }, (c) => changes.push(c), true);
    const launch = field('launch');
    expect({ id: launch.id, value: launch.value, disabled: launch.disabled }).toEqual({
      id: ':r1:-launch',
      value: 'mpirun -np 2',
      disabled: true,
    });
    field('tokenFile').onChange('/tmp/token');
    expect(changes).toEqual([{ tokenFile: '/tmp/token' }]);
  });
});
