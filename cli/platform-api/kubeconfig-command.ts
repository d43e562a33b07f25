// `platform-api kubeconfig`: logs in to the API server and writes a kubeconfig context for kubectl
// (and the plugin). Its requests go through the plugin's client (PlatformConnection.toServer), so a
// refusal or a connection failure reads as the plugin's do.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { CommandLine, FlagSpec } from '../plugin/command-line.ts';
import { PlatformConnection } from '../plugin/platform-connection.ts';
import { PluginError } from '../plugin/plugin-error.ts';
import { readPassword } from './password-prompt.ts';

export const KUBECONFIG_FLAGS: readonly FlagSpec[] = [
  { name: 'server', value: 'URL', description: 'the Platform API to log in to (required)' },
  { name: 'id-token', value: 'TOKEN', description: 'use an OIDC ID token instead of the admin login' },
  { name: 'id-token-file', value: 'FILE', description: 'read the OIDC ID token from FILE' },
  {
    name: 'exec-kubelogin',
    description:
      "for OIDC users: let kubelogin (kubectl oidc-login) fetch and refresh tokens with the server's public OIDC settings instead of storing a token",
  },
  {
    name: 'certificate-authority',
    value: 'FILE',
    description: "PEM file of the CA that signed the server's certificate",
  },
  { name: 'insecure-skip-tls-verify', description: "do not verify the server's certificate (development only)" },
  { name: 'kubeconfig', value: 'FILE', description: 'file to update (default: $KUBECONFIG, else ~/.kube/config)' },
  { name: 'context', value: 'NAME', description: 'context name (default: platform-<host>)' },
  { name: 'namespace', value: 'NS', description: "default namespace of the context (a Project's name)" },
];

export interface KubeconfigOptions {
  server: string;
  idToken?: string;
  idTokenFile?: string;
  execKubelogin: boolean;
  certificateAuthority?: string;
  insecure: boolean;
  kubeconfig?: string;
  context?: string;
  namespace?: string;
}

/** The options of a parsed command line; a missing or unusable --server is a usage error (message only). */
export function kubeconfigOptions(line: CommandLine): KubeconfigOptions {
  const value = (name: string) => {
    const given = line.flags.get(name);
    return typeof given === 'string' ? given : undefined;
  };
  const server = value('server');
  if (server === undefined) throw new Error('--server URL is required');
  if (!URL.canParse(server) || !['https:', 'http:'].includes(new URL(server).protocol))
    throw new Error('--server must be an https:// URL');
  const options: KubeconfigOptions = {
    server,
    execKubelogin: line.flags.has('exec-kubelogin'),
    insecure: line.flags.has('insecure-skip-tls-verify'),
  };
  for (const [flag, key] of [
    ['id-token', 'idToken'],
    ['id-token-file', 'idTokenFile'],
    ['certificate-authority', 'certificateAuthority'],
    ['kubeconfig', 'kubeconfig'],
    ['context', 'context'],
    ['namespace', 'namespace'],
  ] as const) {
    const given = value(flag);
    if (given !== undefined) options[key] = given;
  }
  return options;
}

/** A named entry of a kubeconfig's clusters, users or contexts. */
interface NamedEntry {
  name: string;
  [field: string]: unknown;
}

interface KubeconfigUser extends NamedEntry {
  user: Record<string, unknown>;
}

/** The server's answer body as an object (an answer is JSON; a field read from it is checked where used). */
function fieldsOf(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
}

async function adminLogin(connection: PlatformConnection): Promise<string> {
  const password = await readPassword('Admin password: ');
  if (!password) throw new PluginError('error: no password given', 'usage');
  const { body } = await connection.call('POST', '/api/v1alpha1/auth/login', undefined, {
    authorization: `Bearer ${password}`,
  });
  return String(fieldsOf(body).idToken);
}

interface OidcConfig {
  issuerUrl: string;
  cliClientId: string;
  scopes: string[];
}

/** The kubeconfig `user` entry: a token, or kubelogin's exec-credential plugin with the server's OIDC settings. */
async function userEntry(options: KubeconfigOptions, connection: PlatformConnection): Promise<KubeconfigUser> {
  const host = new URL(options.server).host;
  if (options.execKubelogin) {
    const { body } = await connection.call('GET', '/api/v1alpha1/system/public-config');
    const oidcConfig = fieldsOf(body).oidcConfig as OidcConfig | undefined;
    if (!oidcConfig)
      throw new PluginError('error: the server has no OIDC settings, so --exec-kubelogin cannot be used', 'server');
    const scopes = oidcConfig.scopes
      .filter((scope) => scope !== 'openid')
      .map((scope) => `--oidc-extra-scope=${scope}`);
    return {
      name: `oidc@${host}`,
      user: {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: 'kubectl',
          args: [
            'oidc-login',
            'get-token',
            `--oidc-issuer-url=${oidcConfig.issuerUrl}`,
            `--oidc-client-id=${oidcConfig.cliClientId}`,
            ...scopes,
          ],
          interactiveMode: 'IfAvailable',
          provideClusterInfo: false,
        },
      },
    };
  }
  const token = options.idTokenFile
    ? (await readFile(options.idTokenFile, 'utf8')).trim()
    : (options.idToken ?? (await adminLogin(connection)));
  const { body } = await connection.call('GET', '/api/v1alpha1/auth/whoami', undefined, {
    authorization: `Bearer ${token}`,
  });
  return { name: `${String(fieldsOf(body).name)}@${host}`, user: { token } };
}

function upsert(list: unknown, entry: NamedEntry): NamedEntry[] {
  const entries = Array.isArray(list) ? (list as NamedEntry[]) : [];
  return [...entries.filter((existing) => existing.name !== entry.name), entry];
}

/** Where the context goes: --kubeconfig, else KUBECONFIG's first file, else ~/.kube/config. */
function kubeconfigFile(options: KubeconfigOptions): string {
  return (
    options.kubeconfig ?? process.env.KUBECONFIG?.split(delimiter).find(Boolean) ?? join(homedir(), '.kube', 'config')
  );
}

/** Runs the command; resolves with the path written and the context name. */
export async function writeKubeconfig(options: KubeconfigOptions): Promise<{ file: string; context: string }> {
  const ca = options.certificateAuthority ? await readFile(options.certificateAuthority, 'utf8') : undefined;
  const connection = PlatformConnection.toServer({
    server: options.server,
    insecureSkipTlsVerify: options.insecure,
    ...(options.certificateAuthority ? { certificateAuthority: options.certificateAuthority } : {}),
  });
  const user = await userEntry(options, connection);
  const host = new URL(options.server).host;
  const clusterName = `platform-${host}`;
  const contextName = options.context ?? clusterName;
  const file = kubeconfigFile(options);
  const existing = await readFile(file, 'utf8').then(
    (text) => (parseYaml(text) ?? {}) as Record<string, unknown>,
    () => ({}) as Record<string, unknown>,
  );
  const cluster = {
    server: options.server.replace(/\/+$/, ''),
    ...(ca ? { 'certificate-authority-data': Buffer.from(ca).toString('base64') } : {}),
    ...(options.insecure ? { 'insecure-skip-tls-verify': true } : {}),
  };
  const config = {
    ...existing,
    apiVersion: 'v1',
    kind: 'Config',
    clusters: upsert(existing.clusters, { name: clusterName, cluster }),
    users: upsert(existing.users, user),
    contexts: upsert(existing.contexts, {
      name: contextName,
      context: {
        cluster: clusterName,
        user: user.name,
        ...(options.namespace ? { namespace: options.namespace } : {}),
      },
    }),
    'current-context': contextName,
  };
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, stringifyYaml(config), { mode: 0o600 });
  return { file, context: contextName };
}
