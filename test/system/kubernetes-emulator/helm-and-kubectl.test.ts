// The real helm and kubectl (client-go) against the emulator over HTTPS: client-go sends bearer tokens only over
// TLS. helm's `lookup` under `--dry-run=server` reads a Secret; kubectl reads objects, discovery and the version.
import { generateTlsCertificate } from '../../../infra/kube-emulator/self-signed-certificate.ts';
import { execFile } from 'node:child_process';
import { access, constants, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiextensionsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { useKubeEmulator } from '../../support/emulator-fixture.ts';

// Async on purpose: a synchronous child process would block the event loop that serves the in-process emulator.
const run = promisify(execFile);
const TOOLS = fileURLToPath(new URL('../../../.tools/bin/', import.meta.url));
const HELM = join(TOOLS, 'helm');
const KUBECTL = join(TOOLS, 'kubectl');

const emulator = useKubeEmulator({ tls: await generateTlsCertificate('127.0.0.1') });
let folder = '';
let kubeconfig = '';

async function requireTool(path: string): Promise<void> {
  await access(path, constants.X_OK).catch(() => {
    throw new Error(`${path} is missing: run \`bash infra/tools/install-tools.sh\` (npm test does it first)`);
  });
}

/** Runs a CLI with a private config and cache; rejects with its stderr. */
async function cli(tool: string, args: string[]): Promise<string> {
  const home = join(folder, 'home');
  const env = {
    ...process.env,
    HOME: home,
    HELM_CONFIG_HOME: join(home, 'helm-config'),
    HELM_CACHE_HOME: join(home, 'helm-cache'),
    HELM_DATA_HOME: join(home, 'helm-data'),
  };
  try {
    return (await run(tool, args, { env, timeout: 60_000 })).stdout;
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`${tool} ${args.join(' ')} failed: ${stderr || (error as Error).message}`);
  }
}

const kubectl = (...args: string[]): Promise<string> =>
  cli(KUBECTL, ['--kubeconfig', kubeconfig, '--cache-dir', join(folder, 'kube-cache'), ...args]);

/** Writes a one-template chart and renders it with `helm template --dry-run=server` against the emulator. */
async function renderChart(name: string, template: string): Promise<string> {
  const chart = join(folder, name);
  await mkdir(join(chart, 'templates'), { recursive: true });
  await writeFile(join(chart, 'Chart.yaml'), `apiVersion: v2\nname: ${name}\nversion: 0.1.0\n`);
  await writeFile(join(chart, 'templates', 'probe.yaml'), template);
  return cli(HELM, [
    'template',
    'probe',
    chart,
    '--namespace',
    'probe-ns',
    '--dry-run=server',
    '--kubeconfig',
    kubeconfig,
  ]);
}

beforeAll(async () => {
  await Promise.all([requireTool(HELM), requireTool(KUBECTL)]);
  folder = await mkdtemp(join(tmpdir(), 'kube-emulator-cli-'));
  kubeconfig = join(folder, 'kubeconfig');
  await writeFile(kubeconfig, emulator().kubeConfigYaml());
  const core = emulator().kubeConfig().makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'probe-ns' } } });
  await core.createNamespacedSecret({
    namespace: 'probe-ns',
    body: { metadata: { name: 'probe-secret' }, stringData: { key: 'from-the-cluster' } },
  });
});

afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('HTTPS with a generated certificate', () => {
  it('puts the certificate in the kubeconfigs and verifies it', () => {
    const cluster = emulator().kubeConfig().getCurrentCluster()!;
    expect(emulator().url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(cluster.skipTLSVerify).toBeFalsy();
    expect(Buffer.from(cluster.caData!, 'base64').toString()).toBe(emulator().caCertificate);
    expect(emulator().kubeConfigYaml()).toContain(`certificate-authority-data: "${cluster.caData}"`);
  });

  it('is refused by a client that does not trust the certificate', async () => {
    await expect(fetch(`${emulator().url}/version`)).rejects.toThrow();
  });
});

describe('helm', () => {
  it('reads an existing Secret with lookup under --dry-run=server', async () => {
    const output = await renderChart(
      'lookup-secret',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe\ndata:\n  key: {{ (lookup "v1" "Secret" "probe-ns" "probe-secret").data.key | quote }}\n',
    );
    expect(output).toContain(`key: "${Buffer.from('from-the-cluster').toString('base64')}"`);
  });

  it('renders a Secret that exists only when Helm owns it, as on a real cluster', async () => {
    const ownership = {
      labels: { 'app.kubernetes.io/managed-by': 'Helm' },
      annotations: { 'meta.helm.sh/release-name': 'probe', 'meta.helm.sh/release-namespace': 'probe-ns' },
    };
    await emulator()
      .kubeConfig()
      .makeApiClient(CoreV1Api)
      .createNamespacedSecret({
        namespace: 'probe-ns',
        body: { metadata: { name: 'owned', ...ownership }, stringData: { key: 'kept' } },
      });
    const template = (name: string): string =>
      `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${name}\ndata:\n  key: {{ (lookup "v1" "Secret" "probe-ns" "${name}").data.key }}\n`;
    expect(await renderChart('owned-secret', template('owned'))).toContain(
      `key: ${Buffer.from('kept').toString('base64')}`,
    );
    await expect(renderChart('unowned-secret', template('probe-secret'))).rejects.toThrow(
      'exists and cannot be imported into the current release',
    );
  });

  it('finds nothing for a missing Secret', async () => {
    const output = await renderChart(
      'lookup-missing',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe\ndata:\n  found: {{ empty (lookup "v1" "Secret" "probe-ns" "absent") | quote }}\n',
    );
    expect(output).toContain('found: "true"');
  });

  it('renders kinds of CustomResourceDefinitions created in the emulator', async () => {
    const extensions = emulator().kubeConfig().makeApiClient(ApiextensionsV1Api);
    await extensions.createCustomResourceDefinition({
      body: {
        metadata: { name: 'widgets.probe.dev' },
        spec: {
          group: 'probe.dev',
          scope: 'Namespaced',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
            },
          ],
        },
      },
    });
    const output = await renderChart(
      'custom-kind',
      'apiVersion: probe.dev/v1\nkind: Widget\nmetadata:\n  name: probe\nspec:\n  size: 3\n',
    );
    expect(output).toContain('kind: Widget');
  });

  it('refuses a kind the emulator does not serve as a real server does', async () => {
    const render = renderChart(
      'unknown-kind',
      'apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata:\n  name: probe\n',
    );
    await expect(render).rejects.toThrow('no matches for kind "Service" in version "serving.knative.dev/v1"');
  });
});

describe('kubectl', () => {
  it('reports the server version', async () => {
    const version = JSON.parse(await kubectl('version', '-o', 'json')) as { serverVersion: { gitVersion: string } };
    expect(version.serverVersion.gitVersion).toBe('v1.33.0');
  });

  it('lists namespaces', async () => {
    const names = (await kubectl('get', 'namespaces', '-o', 'name')).trim().split('\n');
    expect(names).toEqual(expect.arrayContaining(['namespace/default', 'namespace/kube-system', 'namespace/probe-ns']));
  });

  it('reads a Secret as JSON', async () => {
    const secret = JSON.parse(await kubectl('get', 'secret', '-n', 'probe-ns', 'probe-secret', '-o', 'json')) as {
      kind: string;
      data: Record<string, string>;
    };
    expect(secret.kind).toBe('Secret');
    expect(Buffer.from(secret.data.key!, 'base64').toString()).toBe('from-the-cluster');
  });

  it('lists the API resources from discovery', async () => {
    const resources = (await kubectl('api-resources', '-o', 'name')).trim().split('\n');
    expect(resources).toEqual(
      expect.arrayContaining([
        'secrets',
        'namespaces',
        'roles.rbac.authorization.k8s.io',
        'customresourcedefinitions.apiextensions.k8s.io',
      ]),
    );
  });
});
