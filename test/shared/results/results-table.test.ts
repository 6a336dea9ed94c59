import { describe, expect, it } from 'vitest';
import { RESULT_COLUMNS, resultCells, resultsCsv, resultsJson, resultTexts } from '../../../src/shared/results/results-table.js';
import { SWEEP_HEADER, sweepRow } from '../../../src/shared/export/format.js';
import { bandwidthTime } from '../../../src/shared/data/stats.js';
import { csvObjects } from '../export/csv.js';
import { allGather, allReduce, buildRecord, sendRecv } from '../export/records.js';

const steps = (world: number, ...specs: Parameters<typeof buildRecord>[0]['steps']) => buildRecord({ world, steps: specs }).steps;

describe('the nccl-tests results table', () => {
  it('prints the two header lines nccl-tests prints, from the one column list', () => {
    expect(SWEEP_HEADER).toEqual([
      '#        size         count      type   redop  root      time    algbw    busbw  #wrong',
      '#         (B)    (elements)                              (us)   (GB/s)   (GB/s)        ',
    ]);
    expect(RESULT_COLUMNS.map((c) => c.id)).toEqual(['size', 'count', 'type', 'redop', 'root', 'time', 'algbw', 'busbw', 'wrong']);
  });

  it('prints an all_reduce row as nccl-tests does: size, elements, type, redop, no root (-), time, bandwidths, #wrong', () => {
    const [step] = steps(2, {
      label: 'all_reduce',
      action: allReduce(1024),
      timesUs: [
        [10, 10],
        [10, 10],
      ],
    });
    expect(sweepRow(step)).toBe('         4096          1024   float32     sum     -      10.0     0.41     0.41       0');
    expect(resultCells(step)).toEqual({
      size: 4096,
      count: 1024,
      type: 'float32',
      redop: 'sum',
      root: -1,
      time: 10,
      algbw: 0.4096,
      busbw: 0.4096,
      wrong: 0,
    });
  });

  it("counts a group of sends as nccl-tests' sendrecv does: what the busiest sender sends", () => {
    const [exchange] = steps(2, {
      label: 'exchange',
      action: { kind: 'group', items: [sendRecv(0, 1, 2), sendRecv(1, 0, 2)] },
      timesUs: [[5], [5]],
    });
    expect(exchange.bytes).toBe(8);
    expect(resultCells(exchange)).toMatchObject({ count: 2, type: 'float32' });
    const [oneWay] = steps(2, {
      label: 'three sends',
      action: { kind: 'group', items: [sendRecv(0, 1, 2), sendRecv(0, 1, 3), sendRecv(1, 0, 1)] },
      timesUs: [[5], [5]],
    });
    expect(oneWay.bytes).toBe(20);
    expect(resultCells(oneWay)).toMatchObject({ count: 5, type: 'float32' });
  });

  it('counts each item of a mixed group with its own type, at the world the bytes were counted for', () => {
    // all_gather of 2 float64 per rank on 3 ranks: 6 elements, 48 B; send of 4 float16: 4 elements, 8 B.
    const [mixed] = steps(3, {
      label: 'mixed',
      action: { kind: 'group', items: [allGather(2, 'float64'), sendRecv(0, 1, 4, 'float16')] },
      timesUs: [[5], [5], [5]],
    });
    expect(mixed.bytes).toBe(56);
    expect(resultCells(mixed)).toMatchObject({ count: 10, type: 'mixed' });
  });

  it('leaves count, type and bandwidth empty where a step moves no tensor', () => {
    const [barrier] = steps(2, { label: 'barrier', action: { kind: 'barrier' }, timesUs: [[3], [3]] });
    expect(resultCells(barrier)).toMatchObject({ size: 0, count: null, type: null, algbw: null, busbw: null, time: 3 });
    expect(resultTexts(barrier)).toMatchObject({ count: 'n/a', type: '-', root: '-', algbw: 'n/a' });
  });

  it('has no #wrong count for a step that did not finish, and says why in its place', () => {
    const [error, stopped] = steps(
      2,
      { label: 'a', action: allReduce(4), timesUs: [[1], []], unfinished: 'error' },
      { label: 'b', action: allReduce(4), timesUs: [[1], []], unfinished: 'stopped' },
    );
    expect(resultCells(error).wrong).toBeNull();
    expect(resultTexts(error).wrong).toBe('error');
    expect(resultTexts(stopped).wrong).toBe('stopped');
    expect(sweepRow(stopped).trim().split(/\s+/).at(-1)).toBe('stopped');
  });
});

describe('the results table as CSV and JSON', () => {
  const record = buildRecord({
    world: 2,
    steps: [
      {
        label: 'all_reduce "big", fast',
        action: allReduce(262144),
        timesUs: [
          [100, 120, 110],
          [101, 119, 111],
        ],
      },
      { label: 'wait', action: { kind: 'wait', id: 'x' }, timesUs: [[], []] },
      { label: 'line\nbreak', action: sendRecv(0, 1, 3), timesUs: [[7.25], [7.75]], wrong: 2 },
      { label: 'barrier', action: { kind: 'barrier' }, timesUs: [[3], [3]] },
    ],
  });

  it("reads back to the record's numbers: step, size, count, time (µs), algbw and busbw (GB/s), #wrong, verdict", () => {
    const rows = csvObjects(resultsCsv(record));
    const results = record.steps.filter((s) => s.action.kind !== 'wait');
    expect(rows.map((r) => r.label)).toEqual(results.map((s) => s.label));
    for (const [i, s] of results.entries()) {
      const row = rows[i];
      expect(Number(row.step)).toBe(s.index);
      expect(Number(row['size (B)'])).toBe(s.bytes);
      // Rounded to what was measured: the nanosecond, and 0.1 MB/s.
      expect(Number(row['time (us)'])).toBeCloseTo(bandwidthTime(s.timing!), 3);
      expect(row['time (us)']).toMatch(/^\d+(\.\d{1,3})?$/);
      for (const [column, value] of [
        ['algbw (GB/s)', s.algbw],
        ['busbw (GB/s)', s.busbw],
      ] as const) {
        if (value === null) expect(row[column]).toBe('');
        else {
          expect(Number(row[column])).toBeCloseTo(value, 4);
          expect(row[column]).toMatch(/^\d+(\.\d{1,4})?$/);
        }
      }
      expect(Number(row['#wrong'])).toBe(s.wrong);
      expect(row.verdict).toBe(s.verdict);
    }
    expect(rows[0]).toMatchObject({ op: 'all_reduce', 'count (elements)': '262144', type: 'float32', redop: 'sum', root: '-1' });
    expect(rows[1]).toMatchObject({ op: 'send/recv', '#wrong': '2', verdict: 'fail' });
    expect(rows[2]).toMatchObject({ 'count (elements)': '', type: '' });
  });

  it("adds NCCL's choice after the other columns where the profiler saw the step, empty elsewhere", () => {
    const withNccl = structuredClone(record);
    withNccl.steps[0].nccl = {
      calls: 4,
      seen: 4,
      algo: { RING: 3, TREE: 1 },
      proto: { SIMPLE: 4 },
      nChannels: { '24': 4 },
      missingEnds: 0,
      zeroTimes: 0,
      kernelMedianUs: 12.5,
      predictedChosenUs: null,
    };
    const rows = csvObjects(resultsCsv(withNccl));
    expect(rows[0]).toMatchObject({
      'nccl algo': 'varied (RING×3, TREE×1)',
      'nccl proto': 'SIMPLE',
      'nccl channels': '24',
      'kernel (us)': '12.5',
      'nccl predicted (us)': '',
    });
    expect(rows[1]).toMatchObject({ 'nccl algo': '', 'kernel (us)': '' });
    expect(resultsJson(withNccl)[0]).toMatchObject({
      ncclAlgo: 'varied (RING×3, TREE×1)',
      ncclChannels: '24',
      kernelUs: 12.5,
      ncclPredictedUs: null,
    });
  });

  it('quotes fields holding commas, quotes and line breaks (RFC 4180)', () => {
    const lines = resultsCsv(record).split('\r\n');
    expect(lines[1]).toContain('"all_reduce ""big"", fast"');
    expect(resultsCsv(record)).toContain('"line\nbreak"');
    expect(resultsCsv(record).endsWith('\r\n')).toBe(true);
  });

  it('gives the same rows as JSON objects, without waits and block markers', () => {
    const rows = resultsJson(record);
    expect(rows.map((r) => r.step)).toEqual([0, 2, 3]);
    expect(rows[0]).toMatchObject({ label: 'all_reduce "big", fast', op: 'all_reduce', size: 1048576, count: 262144, verdict: 'pass' });
    expect(rows[0].time).toBe(bandwidthTime(record.steps[0].timing!));
  });
});
