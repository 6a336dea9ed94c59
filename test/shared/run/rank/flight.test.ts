import { describe, expect, it } from 'vitest';
import { describeEntry, flightEntrySchema } from '../../../../src/shared/run/rank/flight';

const at = { seq: 7, repeat: 1, step: 3, stream: 0 };

describe('flight recorder entries', () => {
  it('name the call as a learner reads it: op, root or peer or redop, size, number', () => {
    expect(describeEntry({ ...at, op: 'broadcast', root: 0, dtype: 'float32', count: 3 })).toBe(
      'broadcast(root 0, 3 × float32 = 12 B, #7)',
    );
    expect(describeEntry({ ...at, op: 'all_reduce', redop: 'sum', dtype: 'float16', count: 3 })).toBe(
      'all_reduce(sum, 3 × float16 = 6 B, #7)',
    );
    expect(describeEntry({ ...at, op: 'recv', peer: 2, dtype: 'float32', count: 4194304 })).toBe(
      'recv(from 2, 4194304 × float32 = 16 MiB, #7)',
    );
    expect(describeEntry({ ...at, op: 'barrier' })).toBe('barrier(#7)');
  });

  it('a repeated call spans its numbers; a group lists its calls', () => {
    expect(describeEntry({ ...at, op: 'all_reduce', redop: 'max', dtype: 'int32', count: 1, repeat: 10 })).toBe(
      'all_reduce(max, 1 × int32 = 4 B, #7–#16)',
    );
    expect(
      describeEntry({
        ...at,
        op: 'group',
        items: [
          { op: 'send', peer: 1, dtype: 'float32', count: 2 },
          { op: 'recv', peer: 1, dtype: 'float32', count: 2 },
        ],
      }),
    ).toBe('group(send(to 1, 2 × float32 = 8 B), recv(from 1, 2 × float32 = 8 B), #7)');
  });

  it('entries crossing the process boundary are validated', () => {
    expect(flightEntrySchema.safeParse({ ...at, op: 'all_reduce', dtype: 'float32', count: 3 }).success).toBe(true);
    expect(flightEntrySchema.safeParse({ ...at, seq: 0, op: 'all_reduce' }).success).toBe(false);
    expect(flightEntrySchema.safeParse({ ...at, op: 'all_reduce', dtype: 'float31' }).success).toBe(false);
  });
});
