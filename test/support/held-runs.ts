import { expect } from 'vitest';
import { API, TEAM_PROJECT, expectStatus, send, type Platform, workspaceObject } from './platform-fixture.ts';

/** A test file's runs held by the platform's controller: started, claimed, and appended to as the controller does. */
export interface HeldRuns {
  /** A Running run (claimed by the controller) of a Workspace of its own, so the claim takes exactly it, with `lines` already in its log. */
  runningRun(lines?: string[]): Promise<string>;
  /** Appends the next numbered chunk of a held run's log. */
  appendLines(runId: string, lines: string[]): Promise<void>;
  /** Sends a chunk starting at `firstSeq` with the run's lease, whatever the answer (a retry, a late chunk). */
  sendChunk(runId: string, firstSeq: number, lines: string[]): Promise<Response>;
  /** Ends a held run as its controller does. */
  finish(runId: string, phase?: 'Succeeded' | 'Failed'): Promise<void>;
}

export function heldRuns(platform: () => Platform, workspacePrefix: string): HeldRuns {
  const controller = (method: string, path: string, body?: unknown) =>
    send(platform().gateway.url, platform().tokens.controller, method, path, body);
  let workspaces = 0;
  /** The lease and next line number of each run the test's controller holds. */
  const held = new Map<string, { leaseId: string; nextSeq: number }>();

  const appendLines = async (runId: string, lines: string[]): Promise<void> => {
    const lease = held.get(runId)!;
    await controller('POST', `/internal/runs/${runId}/logs`, {
      leaseId: lease.leaseId,
      firstSeq: lease.nextSeq,
      lines,
    }).then(expectStatus(200));
    lease.nextSeq += lines.length;
  };

  const runningRun = async (lines: string[] = []): Promise<string> => {
    const workspace = `${workspacePrefix}-${++workspaces}`;
    await send(
      platform().gateway.url,
      platform().tokens.admin,
      'POST',
      `${API}/namespaces/${TEAM_PROJECT}/workspaces`,
      workspaceObject(workspace),
    ).then(expectStatus(201));
    const run = await send(
      platform().gateway.url,
      platform().tokens.admin,
      'POST',
      `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/${workspace}/runs`,
      { type: 'apply' },
    ).then(expectStatus(201));
    const claimed = await controller('POST', '/internal/runs/claim', {
      project: TEAM_PROJECT,
      workspace,
      leaseSeconds: 600,
    }).then(expectStatus(200));
    expect(claimed.run.id).toBe(run.id);
    held.set(run.id, { leaseId: claimed.lease.id, nextSeq: 1 });
    if (lines.length > 0) await appendLines(run.id, lines);
    return run.id as string;
  };

  const sendChunk = (runId: string, firstSeq: number, lines: string[]) =>
    controller('POST', `/internal/runs/${runId}/logs`, { leaseId: held.get(runId)!.leaseId, firstSeq, lines });

  const finish = async (runId: string, phase: 'Succeeded' | 'Failed' = 'Succeeded'): Promise<void> => {
    await controller('POST', `/internal/runs/${runId}/phase`, {
      leaseId: held.get(runId)!.leaseId,
      phase,
      message: 'finished by the test',
    }).then(expectStatus(200));
  };

  return { runningRun, appendLines, sendChunk, finish };
}
