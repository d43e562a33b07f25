// `kubectl platform rollouts get ROLLOUT [-w]`: the Rollout's stages as a tree with their phases and the
// runs behind them; -w redraws it as the Rollout or its runs change, as `kubectl argo rollouts get
// rollout --watch` does (in place on a terminal, one drawing after another elsewhere, only when what it
// shows changed beyond its ages).
import type { IncomingMessage } from 'node:http';
import { rolloutGroupVersion } from '../plugin/platform-api-group.ts';
import { type PlatformConnection, parseAnswer, readAnswer } from '../plugin/platform-connection.ts';
import { printObject } from '../plugin/printed-objects.ts';
import { type Rollout, drawRollout } from '../plugin/rollout-tree.ts';
import { getRun, type RunRecord } from '../plugin/runs-client.ts';
import { serverError } from '../plugin/server-errors.ts';
import { mayApproveRollout } from '../plugin/approve-access.ts';
import { approvalWindowLines, readProject } from '../plugin/approval-window-lines.ts';
import { type PluginCommand, booleanFlag } from './plugin-command.ts';

/** How often a watch reads the stages' runs again (they change without the Rollout changing). */
const RUNS_REFRESH_MS = 2_000;
/** Clears the screen and homes the cursor: a watch redraws the tree in place on a terminal. */
const CLEAR_SCREEN = '\u001b[H\u001b[2J';

export const rolloutsGet: PluginCommand = {
  words: ['rollouts', 'get'],
  arguments: ['ROLLOUT'],
  summary: 'Show a Rollout: its stages as a tree, with their phases, approvals and runs',
  flags: [{ name: 'watch', short: 'w', description: 'redraw as the Rollout and its runs change' }],
  outputs: ['json', 'yaml'],
  examples: ['kubectl platform rollouts get network-v2 -n demo', 'kubectl platform rollouts get network-v2 -w'],
  async run(context) {
    const connection = context.connection();
    const { group, version } = await rolloutGroupVersion(connection);
    const path = `/apis/${group}/${version}/namespaces/${encodeURIComponent(connection.namespace)}/rollouts`;
    const name = context.line.positionals[0]!;
    let rollout = (await connection.call('GET', `${path}/${encodeURIComponent(name)}`)).body as Rollout;
    // Off a terminal the ages are drawn as at the watch's start to tell whether anything else changed:
    // a pipe (a CI log) gets a new tree per change, not one per refresh because a second went by.
    const watchStartedAt = Date.now();
    const draw = async (): Promise<{ text: string; compared: string }> => {
      if (context.output === 'json' || context.output === 'yaml') {
        const text = printObject(rollout, context.output);
        return { text, compared: text };
      }
      const awaiting = rollout.status?.stages?.some((stage) => stage.phase === 'AwaitingApproval');
      const tree = {
        runs: await stageRuns(connection, rollout),
        mayApprove: awaiting ? await mayApproveRollout(connection, group, rollout) : undefined,
        policyLines: approvalWindowLines(
          await readProject(connection, group, version, rollout.metadata.namespace ?? connection.namespace),
          rollout.metadata.name,
          new Date(),
        ),
      };
      const text = drawRollout(rollout, { ...tree, now: Date.now() });
      return { text, compared: context.terminal ? text : drawRollout(rollout, { ...tree, now: watchStartedAt }) };
    };
    let shown = await draw();
    context.stdout(shown.text);
    if (!booleanFlag(context, 'watch')) return 0;

    const watch = await openWatch(connection, path, name, rollout);
    let redrawing = Promise.resolve();
    const redraw = () => {
      // One drawing at a time, in order; a tick that failed (the server briefly away) leaves the next to try.
      redrawing = redrawing
        .catch(() => undefined)
        .then(async () => {
          const next = await draw();
          if (next.compared === shown.compared) return;
          shown = next;
          context.stdout(context.terminal ? `${CLEAR_SCREEN}${next.text}` : `\n${next.text}`);
        });
      return redrawing;
    };
    const ticker = setInterval(() => void redraw().catch(() => undefined), RUNS_REFRESH_MS);
    try {
      for await (const object of watchedObjects(watch)) {
        rollout = object;
        await redraw();
      }
    } finally {
      clearInterval(ticker);
    }
    // As kubectl get -w: the server ending the watch (the token expired, say) ends the command.
    return 0;
  },
};

/** The runs behind the stages, each read once (an error kept for its row: the caller may not read runs). */
async function stageRuns(connection: PlatformConnection, rollout: Rollout): Promise<Map<string, RunRecord | Error>> {
  const ids = [...new Set((rollout.status?.stages ?? []).flatMap((stage) => (stage.runId ? [stage.runId] : [])))];
  const runs = await Promise.all(
    ids.map((id) =>
      getRun(connection, rollout.metadata.namespace ?? connection.namespace, id).catch((error: Error) => error),
    ),
  );
  return new Map(ids.map((id, index) => [id, runs[index]!]));
}

async function openWatch(
  connection: PlatformConnection,
  path: string,
  name: string,
  rollout: Rollout,
): Promise<IncomingMessage> {
  const query = new URLSearchParams({
    watch: 'true',
    fieldSelector: `metadata.name=${name}`,
    resourceVersion: (rollout.metadata as { resourceVersion?: string }).resourceVersion ?? '',
  });
  const response = await connection.open('GET', `${path}?${query}`, { accept: 'application/json' });
  if (response.statusCode !== 200) throw serverError(response.statusCode ?? 0, await readAnswer(response));
  return response;
}

/** The Rollout of each ADDED or MODIFIED event of a watch (newline-delimited JSON), until the server ends it. */
async function* watchedObjects(response: IncomingMessage): AsyncGenerator<Rollout> {
  response.setEncoding('utf8');
  let buffered = '';
  for await (const chunk of response) {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      const event = parseAnswer(line) as { type?: string; object?: Rollout };
      if ((event.type === 'ADDED' || event.type === 'MODIFIED') && event.object) yield event.object;
      if (event.type === 'DELETED') return;
    }
  }
}
