// Issue 48, item 5: `kubectl platform runs get` prints the results of a run's tasks under the run, as a kubectl
// table, naming any override and, while the run waits, until when (the server's results, never recomputed).
import { describe, expect, it } from 'vitest';
import { runTaskLines } from '../../../cli/plugin/run-task-lines.ts';
import type { RunRecord } from '../../../cli/plugin/runs-client.ts';
import type { TaskResult } from '../../../shared/domain/runs/tasks/run-task-results.ts';

const run = (phase: RunRecord['phase']) => ({ id: '0196f0c2-5d7e-7b61-9a4e-2f9d1e0c8a31', phase }) as RunRecord;
const result = (fields: Partial<TaskResult>): TaskResult => ({
  id: '0196f0c2-0000-7b61-9a4e-2f9d1e0c8a31',
  runId: '0196f0c2-5d7e-7b61-9a4e-2f9d1e0c8a31',
  task: 'scanner',
  stage: 'pre_plan',
  enforcement: 'mandatory',
  status: 'pending',
  message: '',
  url: null,
  outcomes: [],
  deadline: '2026-12-07T06:10:00.000Z',
  createdAt: '2026-12-07T06:00:00.000Z',
  updatedAt: '2026-12-07T06:00:00.000Z',
  overriddenBy: null,
  overrideReason: null,
  overriddenAt: null,
  ...fields,
});

describe('Issue 48, item 5: kubectl platform runs get prints task results', () => {
  it('a run without tasks prints nothing more', () => {
    expect(runTaskLines(run('Pending'), [])).toBe('');
  });

  it('a waiting run: each task with its status, and until when the run waits', () => {
    expect(
      runTaskLines(run('AwaitingTasks'), [
        result({ task: 'cost', enforcement: 'advisory', status: 'failed', message: 'cost rises by 40 %' }),
        result({}),
      ]),
    ).toBe(
      [
        '',
        'TASK      STAGE      ENFORCEMENT   STATUS    MESSAGE',
        'cost      pre_plan   advisory      failed    cost rises by 40 %',
        'scanner   pre_plan   mandatory     pending   <none>',
        'Waiting for its run tasks until 2026-12-07T06:10:00.000Z (RUN_TASK_TIMEOUT)',
        '',
      ].join('\n'),
    );
  });

  it('an overridden failure says so and names who and why; wide adds the outcomes and the link', () => {
    const overridden = result({
      status: 'failed',
      message: 'ticket missing',
      url: 'https://scanner.example.com/1',
      outcomes: [{ outcomeId: 'T-1', description: 'no ticket' }],
      overriddenBy: 'oidc:alice@example.com',
      overrideReason: 'CHG-42',
    });
    expect(runTaskLines(run('Pending'), [overridden], true)).toBe(
      [
        '',
        'TASK      STAGE      ENFORCEMENT   STATUS                OUTCOMES   URL                             MESSAGE',
        'scanner   pre_plan   mandatory     failed (overridden)   1          https://scanner.example.com/1   ticket missing',
        'Overridden by oidc:alice@example.com: CHG-42',
        '',
      ].join('\n'),
    );
  });
});

describe("Issue 48, item 1: runs get prints a succeeded plan's post_plan results under their stage", () => {
  it('the pre_plan and post_plan results, each labelled with its stage; a Succeeded plan waits for nothing itself', () => {
    expect(
      runTaskLines(run('Succeeded'), [
        result({ status: 'passed', message: 'fine' }),
        result({ stage: 'post_plan', enforcement: 'advisory', task: 'cost', status: 'running' }),
      ]),
    ).toBe(
      [
        '',
        'TASK      STAGE       ENFORCEMENT   STATUS    MESSAGE',
        'scanner   pre_plan    mandatory     passed    fine',
        'cost      post_plan   advisory      running   <none>',
        '',
      ].join('\n'),
    );
  });
});
