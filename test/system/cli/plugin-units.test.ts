// Issue 39: the plugin's pieces alone, against what kubectl does: ages as kubectl prints them, the command
// line as pflag reads it, KUBECONFIG's files merged as client-go merges them, terminal escapes, the
// event-stream reader; and `npx kubectl-platform` from the checkout.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { parseCommandLine } from '../../../cli/plugin/command-line.ts';
import { humanDuration } from '../../../cli/plugin/human-duration.ts';
import { loadKubeconfig } from '../../../cli/plugin/kubeconfig-files.ts';
import { serverSentEvents } from '../../../cli/plugin/server-sent-events.ts';
import { withoutColours } from '../../../cli/plugin/terminal-colours.ts';
import { REPO_ROOT } from '../../support/function-servers.ts';

describe("Ages read as kubectl's (duration.HumanDuration)", () => {
  it.each([
    [-3_000, '<invalid>'],
    [-1_500, '0s'],
    [59_000, '59s'],
    [119_999, '119s'],
    [120_000, '2m'],
    [192_000, '3m12s'],
    [25 * 60_000, '25m'],
    [179 * 60_000, '179m'],
    [(4 * 60 + 10) * 60_000, '4h10m'],
    [30 * 3_600_000, '30h'],
    [(3 * 24 + 5) * 3_600_000, '3d5h'],
    [400 * 86_400_000, '400d'],
    [(2 * 365 + 30) * 86_400_000, '2y30d'],
    [9 * 365 * 86_400_000, '9y'],
  ])('%d ms is %s', (milliseconds, printed) => {
    expect(humanDuration(milliseconds)).toBe(printed);
  });
});

describe('The command line is read as kubectl (pflag) reads one', () => {
  const specs = [
    { name: 'namespace', short: 'n', value: 'NS', description: '' },
    { name: 'watch', short: 'w', description: '' },
    { name: 'message', short: 'm', value: 'M', description: '' },
  ];

  it('takes values after a space, after =, glued to a short flag, and flags anywhere; -- ends the flags', () => {
    const line = parseCommandLine(['-nteam-a', 'runs', '--message=a b', 'list', '-w', '--', '-x'], specs);
    expect(line.positionals).toEqual(['runs', 'list', '-x']);
    expect(Object.fromEntries(line.flags)).toEqual({ namespace: 'team-a', message: 'a b', watch: true });
    expect(Object.fromEntries(parseCommandLine(['--watch=false', '-n', 'x', '-m=y'], specs).flags)).toEqual({
      namespace: 'x',
      message: 'y',
    });
  });

  it("refuses an unknown flag, a flag without its value and a boolean that is not one, in pflag's words", () => {
    expect(() => parseCommandLine(['--colour'], specs)).toThrow('error: unknown flag: --colour');
    expect(() => parseCommandLine(['-x'], specs)).toThrow("unknown shorthand flag: 'x' in -x");
    expect(() => parseCommandLine(['--message'], specs)).toThrow('flag needs an argument: --message');
    expect(() => parseCommandLine(['--watch=maybe'], specs)).toThrow('invalid argument "maybe" for "-w, --watch" flag');
  });
});

describe("KUBECONFIG's files are merged as kubectl merges them", () => {
  let folder = '';
  const saved = process.env.KUBECONFIG;
  const config = (cluster: string, server: string, context?: string) => ({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: cluster, cluster: { server } }],
    users: [{ name: 'me', user: { token: server } }],
    contexts: [{ name: cluster, context: { cluster, user: 'me', namespace: `${cluster}-ns` } }],
    ...(context ? { 'current-context': context } : {}),
  });
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'kubeconfig-merge-'));
    await writeFile(join(folder, 'first'), toYaml(config('shared', 'https://first.example')));
    await writeFile(join(folder, 'second'), toYaml(config('shared', 'https://second.example', 'shared')));
    await writeFile(join(folder, 'third'), toYaml(config('other', 'https://third.example', 'other')));
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = saved;
    await rm(folder, { recursive: true, force: true });
  });

  it('skips a missing file; the first file naming a cluster, user or context wins, and the first current-context', () => {
    process.env.KUBECONFIG = ['missing', 'first', 'second', 'third'].map((file) => join(folder, file)).join(':');
    const merged = loadKubeconfig({});
    expect(merged.getCurrentContext()).toBe('shared');
    expect(merged.getCurrentCluster()?.server).toBe('https://first.example');
    expect(merged.getCurrentUser()?.token).toBe('https://first.example');
    expect(loadKubeconfig({ context: 'other' }).getCurrentCluster()?.server).toBe('https://third.example');
    expect(() => loadKubeconfig({ context: 'nowhere' })).toThrow('error: context "nowhere" does not exist');
  });

  it('--kubeconfig reads that file alone', () => {
    process.env.KUBECONFIG = join(folder, 'second');
    expect(loadKubeconfig({ kubeconfig: join(folder, 'third') }).getCurrentCluster()?.server).toBe(
      'https://third.example',
    );
    expect(() => loadKubeconfig({ kubeconfig: join(folder, 'first') })).toThrow('has no current context');
  });
});

describe("A run's log loses its terminal escapes off a terminal", () => {
  it('strips colours, cursor moves, titles and control characters, and keeps tabs and text', () => {
    expect(withoutColours('\u001b[1;32m+\u001b[0m create\t\u001b]0;title\u0007aws_vpc\u001b[2K\r\u0007')).toBe(
      '+ create\taws_vpc',
    );
  });
});

describe('The event-stream reader follows the format the run-log stream sends', () => {
  async function* chunks(...parts: string[]) {
    yield* parts;
  }
  it('joins data lines, keeps ids and retry, skips comments, accepts CRLF and chunks split anywhere', async () => {
    const events = [];
    for await (const event of serverSentEvents(
      chunks(
        'retry: 3000\n\n: heart',
        'beat\n\nid: 1\ndata: a\r\ndata: b\n',
        '\nevent: end\ndata: {"phase":"Succeeded"}\n\n',
      ),
    ))
      events.push(event);
    expect(events).toEqual([
      { event: 'message', data: undefined, id: undefined, retry: 3000 },
      { event: 'message', data: 'a\nb', id: '1', retry: undefined },
      { event: 'end', data: '{"phase":"Succeeded"}', id: undefined, retry: undefined },
    ]);
  });
});

describe('npx kubectl-platform runs the plugin from the checkout (the package cli/, linked by npm install)', () => {
  it('prints the help', () => {
    const result = spawnSync('npx', ['kubectl-platform', '--help'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('runs start WORKSPACE');
  });
});
