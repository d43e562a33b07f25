// `platform-api kubeconfig`: logs in to the API server and writes a kubeconfig context for kubectl.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { promptHidden, readPasswordFromPipe } from './password-prompt.js';

export const KUBECONFIG_USAGE = `usage: platform-api kubeconfig --server URL [options]

Logs in to the Platform API at URL and writes a kubeconfig context for it (and makes it current).
Without --id-token the admin password is read (prompted without echo, or the first line of a pipe).

  --id-token TOKEN            use an OIDC ID token instead of the admin login
  --id-token-file FILE        read the OIDC ID token from FILE
  --exec-kubelogin            for OIDC users: let kubelogin (kubectl oidc-login) fetch and refresh
                              tokens with the server's public OIDC settings instead of storing a token
  --certificate-authority F   PEM file of the CA that signed the server's certificate
  --insecure-skip-tls-verify  do not verify the server's certificate (development only)
  --kubeconfig FILE           file to update (default: $KUBECONFIG, else ~/.kube/config)
  --context NAME              context name (default: platform-<host>)
  --namespace NS              default namespace of the context (a Project's name)`;

/** Parses the command line; throws with a message for a wrong one. */
export function parseKubeconfigArguments(args) {
  const options = { insecure: false, execKubelogin: false };
  const value = (index, flag) => {
    const given = args[index + 1];
    if (given === undefined || given.startsWith('--')) throw new Error(`${flag} needs a value`);
    return given;
  };
  const flags = {
    '--server': 'server',
    '--id-token': 'idToken',
    '--id-token-file': 'idTokenFile',
    '--certificate-authority': 'certificateAuthority',
    '--kubeconfig': 'kubeconfig',
    '--context': 'context',
    '--namespace': 'namespace',
  };
  for (let index = 0; index < args.length; index++) {
    const flag = args[index];
    if (flag === '--insecure-skip-tls-verify') options.insecure = true;
    else if (flag === '--exec-kubelogin') options.execKubelogin = true;
    else if (flags[flag]) options[flags[flag]] = value(index++, flag);
    else throw new Error(`unknown option ${flag}`);
  }
  if (!options.server) throw new Error('--server URL is required');
  const url = new URL(options.server);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('--server must be an https:// URL');
  if (url.protocol === 'http:')
    process.stderr.write('warning: kubectl sends tokens only over HTTPS; use the https:// URL of the server\n');
  return options;
}

function call(options, ca, method, path, headers = {}) {
  const url = new URL(path, options.server);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = send(
      url,
      {
        method,
        headers,
        ...(url.protocol === 'https:' ? { ca, rejectUnauthorized: !options.insecure } : {}),
        timeout: 15_000,
      },
      (incoming) => {
        let text = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk) => (text += chunk));
        incoming.on('end', () => {
          let body;
          try {
            body = JSON.parse(text);
          } catch {
            body = { error: text };
          }
          if (incoming.statusCode >= 200 && incoming.statusCode < 300) resolve(body);
          else
            reject(
              new Error(
                `${method} ${url.pathname} answered ${incoming.statusCode}: ${body.error ?? body.message ?? text}`,
              ),
            );
        });
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer from ${url.origin} within 15 s`)));
    outgoing.on('error', (error) => reject(connectionError(error, url)));
    outgoing.end();
  });
}

/** A connection failure said in the user's terms: which URL, and what to do, not OpenSSL's words. */
function connectionError(error, url) {
  const code = error.code ?? '';
  if (
    url.protocol === 'https:' &&
    (code === 'EPROTO' || /wrong version number|packet length too long/i.test(error.message))
  )
    return new Error(
      `${url.origin} does not speak HTTPS (the server answered in plain HTTP): start it with LOCAL_HTTPS=true or TLS_CERT_FILE/TLS_KEY_FILE, or use the http:// URL`,
    );
  if (
    code.startsWith('ERR_TLS') ||
    /certificate/i.test(code) ||
    code === 'DEPTH_ZERO_SELF_SIGNED_CERT' ||
    code === 'SELF_SIGNED_CERT_IN_CHAIN'
  )
    return new Error(
      `${url.origin}: its TLS certificate is not trusted (${code}); pass --certificate-authority FILE (with LOCAL_HTTPS: .data/tls/localhost.crt) or, for development only, --insecure-skip-tls-verify`,
    );
  if (code === 'ECONNREFUSED')
    return new Error(`nothing listens at ${url.origin} (connection refused): is the server running?`);
  if (code === 'ENOTFOUND') return new Error(`${url.hostname} does not resolve (ENOTFOUND): check --server`);
  return new Error(`${url.origin}: ${error.message}`);
}

async function adminLogin(options, ca) {
  const password = process.stdin.isTTY ? await promptHidden('Admin password: ') : await readPasswordFromPipe();
  if (!password) throw new Error('no password given');
  const { idToken } = await call(options, ca, 'POST', '/api/v1alpha1/auth/login', {
    authorization: `Bearer ${password}`,
  });
  return idToken;
}

/** The kubeconfig `user` entry: a token, or kubelogin's exec-credential plugin with the server's OIDC settings. */
async function userEntry(options, ca) {
  if (options.execKubelogin) {
    const { oidcConfig } = await call(options, ca, 'GET', '/api/v1alpha1/system/public-config');
    if (!oidcConfig) throw new Error('the server has no OIDC settings, so --exec-kubelogin cannot be used');
    const scopes = oidcConfig.scopes
      .filter((scope) => scope !== 'openid')
      .map((scope) => `--oidc-extra-scope=${scope}`);
    return {
      name: `oidc@${new URL(options.server).host}`,
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
    : (options.idToken ?? (await adminLogin(options, ca)));
  const whoami = await call(options, ca, 'GET', '/api/v1alpha1/auth/whoami', { authorization: `Bearer ${token}` });
  return { name: `${whoami.name}@${new URL(options.server).host}`, user: { token } };
}

function upsert(list, entry) {
  return [...(list ?? []).filter((existing) => existing.name !== entry.name), entry];
}

/** Runs the command; resolves with the path written and the context name. */
export async function writeKubeconfig(options) {
  const ca = options.certificateAuthority ? await readFile(options.certificateAuthority, 'utf8') : undefined;
  const user = await userEntry(options, ca);
  const host = new URL(options.server).host;
  const clusterName = `platform-${host}`;
  const contextName = options.context ?? clusterName;
  const file = options.kubeconfig ?? process.env.KUBECONFIG?.split(':')[0] ?? join(homedir(), '.kube', 'config');
  const existing = await readFile(file, 'utf8').then(
    (text) => parseYaml(text) ?? {},
    () => ({}),
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
