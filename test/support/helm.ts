import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from './function-servers.ts';

const run = promisify(execFile);

/**
 * The real helm binary installed by infra/tools/install-tools.sh; HELM_PATH names it where `.tools/` is
 * absent (the mutation runner's sandbox copies the repository without it).
 */
export const HELM = process.env.HELM_PATH ?? join(REPO_ROOT, '.tools/bin/helm');
export const CHART = join(REPO_ROOT, 'infra/chart');

/** One rendered Kubernetes object. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export interface RenderOptions {
  release?: string;
  namespace?: string;
  /** Extra helm arguments, e.g. `--dry-run=server` with `--kubeconfig`. */
  args?: string[];
  env?: Record<string, string>;
}

/** Runs helm with the given arguments; rejects with helm's stderr. */
export async function helm(args: string[], env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout } = await run(HELM, args, {
      env: { ...process.env, HELM_CONFIG_HOME: join(tmpdir(), 'helm-test-config'), ...env },
      maxBuffer: 32 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`helm ${args[0]} failed: ${stderr ?? (error as Error).message}`);
  }
}

/** `helm template` of the chart with the given values; the rendered objects, in order. */
export async function helmTemplate(
  values: Record<string, unknown> = {},
  options: RenderOptions = {},
): Promise<KubeObject[]> {
  const folder = await mkdtemp(join(tmpdir(), 'chart-values-'));
  try {
    const valuesFile = join(folder, 'values.json');
    await writeFile(valuesFile, JSON.stringify(values));
    const output = await helm(
      [
        'template',
        options.release ?? 'platform',
        CHART,
        '--namespace',
        options.namespace ?? 'platform-system',
        '--values',
        valuesFile,
        ...(options.args ?? []),
      ],
      options.env,
    );
    return parseAllDocuments(output)
      .map((document) => document.toJS() as KubeObject | null)
      .filter((object): object is KubeObject => object !== null);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** The one object of a kind and name; throws when it is not there. */
export function findObject(objects: KubeObject[], kind: string, name: string): KubeObject {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found)
    throw new Error(
      `no ${kind} ${name} among ${objects.map((object) => `${object.kind}/${object.metadata.name}`).join(', ')}`,
    );
  return found;
}
