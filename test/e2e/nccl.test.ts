// What NCCL chose, in Chromium against a real `clab serve`: a cpu sweep's record given the
// profiler plug-in's results as a GPU run has them (each step's choice, its channels' kernels on
// the timeline, NCCL's predicted time), read back from the results table, the model's notes, the
// chart and the timeline's lanes; and the hint where an nccl run did not ask to see inside NCCL.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { sweepModel } from '../../src/shared/learn/sweep-model';
import { INSIDE_NCCL_NOT_ASKED } from '../../src/shared/run/nccl/inside-nccl';
import { mergeStepInfos, shortChoice, type NcclStepInfo } from '../../src/shared/run/nccl/nccl-step-info';
import type { TimelineEvent } from '../../src/shared/run/rank/protocol';
import { runRecordSchema, type RunRecord } from '../../src/shared/run/record/record';
import { REPO_ROOT, screenshot, usesLabPage } from './helpers';
import { selectRun } from './lab-page';

let page: Page;
let path = '';
let notAsked = '';
let record: RunRecord;

/** NCCL's choice at a size, as 2 × H200 made it (NCCL 2.28.3): ring LL up to 1 MiB, then Simple; channels growing with the size. */
function choiceAt(bytes: number, timed: number): NcclStepInfo {
  const proto = bytes > 1 << 20 ? 'SIMPLE' : 'LL';
  const nChannels = Math.min(24, Math.max(1, bytes / 8192));
  return {
    calls: timed,
    seen: timed,
    algo: { RING: timed },
    proto: { [proto]: timed },
    nChannels: { [String(nChannels)]: timed },
    kernelUs: Array.from({ length: timed }, () => 3),
    missingEnds: 0,
    zeroTimes: 0,
    predicted: { bytes, us: { [`RING/${proto}`]: 8 + bytes / 1e4 } },
  };
}

usesLabPage(
  (session) => ({ page } = session),
  (lab) => {
    const sweep = JSON.parse(readFileSync(join(REPO_ROOT, 'scenarios/allreduce-sweep.scenario.json'), 'utf8')) as {
      steps: Record<string, unknown>[];
      $schema?: string;
    };
    sweep.steps[0].maxBytes = '64KiB';
    delete sweep.$schema;
    const scenario = join(lab.runsDir, 'nccl-sweep.scenario.json');
    writeFileSync(scenario, JSON.stringify(sweep));
    path = join(lab.runsDir, 'nccl.run.json');
    execFileSync(process.execPath, ['bin/clab.cjs', 'run', scenario, '--backend', 'cpu', '--out', path], {
      cwd: REPO_ROOT,
      stdio: 'ignore',
    });
    record = runRecordSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
    const channels: TimelineEvent[] = [];
    for (const step of record.steps) {
      for (const r of step.ranks) r.nccl = choiceAt(step.bytes, r.timesUs.length);
      const merged = mergeStepInfos(step.ranks.map((r) => r.nccl!));
      if (merged) step.nccl = merged;
      // Two channels' kernels inside each timed iteration, as the plug-in's slices sit inside the op's.
      record.events
        .filter((e) => e.step === step.index && e.phase === 'timed')
        .forEach((e, iteration) => {
          for (const id of [0, 1]) {
            const span = e.endNs - e.startNs;
            channels.push({
              ...e,
              name: `${step.label} ch ${id}`,
              phase: 'channel',
              startNs: e.startNs + span * 0.1 * (id + 1),
              endNs: e.endNs - span * 0.1,
              channel: { id, algo: 'RING', proto: Object.keys(step.nccl!.proto)[0], iteration },
            });
          }
          // And, as where the network carries the data, channel 0's proxy sending to the other rank.
          const span = e.endNs - e.startNs;
          const waitUs = { gpu: span / 4e3, peer: 0, network: span / 2e3, flush: 0 };
          channels.push({
            ...e,
            name: `${step.label} proxy ch 0 send to ${1 - e.rank}`,
            phase: 'proxy',
            startNs: e.startNs + span * 0.2,
            endNs: e.endNs,
            proxy: { channel: 0, peer: 1 - e.rank, send: true, steps: 4, bytes: step.bytes, iteration, waitUs },
          });
        });
    }
    record.events.push(...channels);
    writeFileSync(path, JSON.stringify(record));
    // The same run on nccl ranks whose scenario did not ask to see inside NCCL: no step says what NCCL chose.
    notAsked = join(lab.runsDir, 'nccl-not-asked.run.json');
    const plain = runRecordSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
    plain.id = `${plain.id}-not-asked`;
    plain.environment.backend = 'nccl';
    for (const step of plain.steps) {
      delete step.nccl;
      for (const r of step.ranks) delete r.nccl;
    }
    plain.events = plain.events.filter((e) => e.phase !== 'channel' && e.phase !== 'proxy');
    writeFileSync(notAsked, JSON.stringify(plain));
  },
);

describe("NCCL's choice in the browser", () => {
  it("shows per step the algorithm, protocol and channels NCCL chose, and says so in the model's notes", async () => {
    await page.getByTestId('tab-runs').click();
    await selectRun(page, path);
    await page.getByTestId('results').waitFor();
    const cells = await page.getByTestId('nccl-choice').allTextContents();
    const sweepSteps = record.steps.filter((s) => s.origin.kind === 'sweep');
    expect(cells).toEqual(sweepSteps.map((s) => shortChoice(s.nccl)));
    expect(cells[0]).toBe('RING LL 1ch');
    expect(await page.getByTestId('nccl-choice').first().getAttribute('title')).toMatch(
      /^algorithm RING, protocol LL, channels 1; kernel 3\.0 µs/,
    );
    const notes = sweepModel(record.plan, record.environment, record.steps, 0)!.notes;
    expect(notes.some((n) => n.startsWith('NCCL chose RING LL 1ch at 8 B'))).toBe(true);
    expect(await page.getByTestId('model-notes').locator('li').allTextContents()).toEqual(notes);
    expect(sweepSteps[0].nccl?.predictedChosenUs).toBeCloseTo(8 + sweepSteps[0].bytes / 1e4, 9);
    expect(await page.getByTestId('bandwidth-chart').first().getAttribute('data-nccl-predicted')).toBe('yes');
  });

  it('says how to ask to see inside NCCL where an nccl run recorded none of its choices, and not where it did', async () => {
    expect(await page.getByTestId('inside-nccl-hint').count()).toBe(0);
    await page.getByTestId('tab-runs').click();
    await selectRun(page, notAsked);
    await page.getByTestId('inside-nccl-hint').waitFor();
    expect(await page.getByTestId('inside-nccl-hint').textContent()).toBe(INSIDE_NCCL_NOT_ASKED);
    expect(await page.getByTestId('nccl-choice').count()).toBe(0);
    await page.getByTestId('tab-runs').click();
    await selectRun(page, path);
    await page.getByTestId('nccl-choice').first().waitFor();
    expect(await page.getByTestId('inside-nccl-hint').count()).toBe(0);
  });

  it("gives each NCCL channel a lane under its rank's stream, holding its kernel slices", async () => {
    await page.getByTestId('tab-timeline').click();
    await page.locator('[data-testid=timeline][data-slices-drawn]').waitFor();
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    const lanes = await page.getByTestId('timeline-lane').evaluateAll((els) =>
      els.map((e) => ({
        lane: e.getAttribute('data-lane') ?? '',
        events: Number(e.getAttribute('data-events')),
      })),
    );
    const perChannel = record.events.filter((e) => e.phase === 'channel' && e.rank === 0 && e.channel!.id === 1).length;
    expect(perChannel).toBeGreaterThan(0);
    const names = lanes.map((l) => l.lane);
    expect(names.indexOf('rank 0 · NCCL ch 0')).toBeGreaterThan(names.indexOf('rank 0 · default'));
    expect(names.indexOf('rank 0 · NCCL ch 1')).toBeLessThan(names.indexOf('rank 0 · host'));
    expect(lanes.find((l) => l.lane === 'rank 1 · NCCL ch 1')?.events).toBe(perChannel);
    // NCCL's proxy operations, where the network carries the data: a lane per channel and direction, after the channels.
    const proxy = names.indexOf('rank 0 · NCCL proxy ch 0 send');
    expect(proxy).toBeGreaterThan(names.indexOf('rank 0 · NCCL ch 1'));
    expect(proxy).toBeLessThan(names.indexOf('rank 0 · host'));
    expect(lanes[proxy].events).toBe(record.events.filter((e) => e.phase === 'proxy' && e.rank === 0).length);
    await screenshot(page, 'nccl-channel-lanes');
  });
});
