import { beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CHART, findObject, helm, helmTemplate, type KubeObject } from '../../support/helm.ts';
import { schemaProblems } from '../../support/kubernetes-schemas.ts';
import { adminHash } from '../../support/admin-fixtures.ts';
import { ADMIN_SETTING_KEYS } from '../../../shared/base/config/admin-account-settings.ts';
import { gatewayRules, resolveGatewayTarget } from '../../../shared/contract/routes/gateway-routing.ts';
import { FUNCTION_NAMES, routeTable } from '../../../shared/contract/routes/route-table.ts';
import { gatewayRulesFile } from '../../../infra/tools/gateway-rules-file.ts';
import { loadSettings } from '../../../shared/base/config/settings.ts';

const GIVEN_HASH = adminHash('a given password');
const GIVEN_KEY = `${'g'.repeat(40)}-given-signing-key-0123`;
const GIVEN = {
  api: {
    group: 'infra.example.io',
    baseUrl: 'https://platform.example.io',
    adminAccount: { enabled: false, passwordHash: GIVEN_HASH, tokenSigningKey: GIVEN_KEY, tokenTTL: '1h' },
    oidc: {
      issuerUrl: 'https://id.example.io',
      clientId: 'web',
      cliClientId: 'cli',
      additionalScopes: ['groups', 'email'],
      usernamePrefix: 'corp:',
    },
  },
  gateway: { hostnames: ['platform.example.io'] },
  bridge: { enabled: true, image: 'ghcr.io/platform/bridge:1' },
};

type Container = {
  name: string;
  image: string;
  env: Array<{ name: string; value?: string; valueFrom?: unknown }>;
  envFrom?: Array<{ secretRef: { name: string } }>;
  volumeMounts?: unknown[];
  readinessProbe: { httpGet: { path: string } };
  livenessProbe: { httpGet: { path: string } };
};
type RevisionTemplate = {
  metadata: { annotations: Record<string, string> };
  spec: {
    containerConcurrency: number;
    timeoutSeconds: number;
    serviceAccountName: string;
    containers: Container[];
    volumes?: Array<{ secret: { secretName: string } }>;
  };
};

const knativeServices = (objects: KubeObject[]) =>
  objects.filter((object) => object.apiVersion === 'serving.knative.dev/v1');
/** The Knative Services of the functions (the bridge, when deployed, is not one). */
const functionServices = (objects: KubeObject[]) =>
  knativeServices(objects).filter((service) => service.metadata.labels?.['app.kubernetes.io/component'] !== 'bridge');
const template = (service: KubeObject) => (service.spec as { template: RevisionTemplate }).template;
const container = (service: KubeObject) => template(service).spec.containers[0]!;
const env = (service: KubeObject, name: string) =>
  container(service).env.find((variable) => variable.name === name)?.value;
const checksums = (objects: KubeObject[]) =>
  functionServices(objects).map((service) => template(service).metadata.annotations['checksum/admin-secret']);
const secretData = (secret: KubeObject) =>
  Object.fromEntries(
    Object.entries(secret.data as Record<string, string>).map(([key, value]) => [
      key,
      Buffer.from(value, 'base64').toString('utf8'),
    ]),
  );
const secrets = (objects: KubeObject[]) => objects.filter((object) => object.kind === 'Secret');

let defaults: KubeObject[];
let given: KubeObject[];
let givenAgain: KubeObject[];
let named: KubeObject[];
let namedKubernetes: KubeObject[];
let mountedFile: KubeObject[];
let awsSecret: KubeObject[];
let scraped: KubeObject[];
let metricsOff: KubeObject[];

beforeAll(async () => {
  [defaults, given, givenAgain, named, namedKubernetes, mountedFile, awsSecret, scraped, metricsOff] =
    await Promise.all([
      helmTemplate(),
      helmTemplate(GIVEN),
      helmTemplate(GIVEN),
      helmTemplate({ api: { secret: { name: 'existing-admin' } } }),
      helmTemplate({ api: { secret: { name: 'existing-admin', source: 'kubernetes' } } }),
      helmTemplate({ api: { secret: { source: 'file' } } }),
      helmTemplate({
        api: {
          secret: {
            source: 'aws-secretsmanager',
            aws: { secretId: 'platform/admin', region: 'eu-west-1' },
            pollInterval: '15s',
          },
        },
      }),
      helmTemplate({
        metrics: {
          scraper: { serviceAccount: { name: 'prometheus-k8s', namespace: 'monitoring' } },
          serviceMonitor: { enabled: true, labels: { release: 'kube-prometheus-stack' } },
          dashboard: { enabled: true },
        },
      }),
      helmTemplate({ metrics: { enabled: false } }),
    ]);
}, 60_000);

describe('The chart lints and validates its values', () => {
  it('passes helm lint with the defaults and with given values', async () => {
    await helm(['lint', CHART]);
    await helm(['lint', CHART, '--set', 'api.adminAccount.tokenTTL=1h', '--set', 'api.secret.name=existing-admin']);
  });

  it('refuses a $2y$ hash, an unknown value and an unknown secret source before rendering anything', async () => {
    await expect(
      helmTemplate({ api: { adminAccount: { passwordHash: adminHash('a given password', '$2y$') } } }),
    ).rejects.toThrow(/passwordHash/);
    await expect(helmTemplate({ api: { adminAcount: {} } })).rejects.toThrow(/adminAcount/);
    await expect(helmTemplate({ api: { secret: { source: 'vault' } } })).rejects.toThrow(/source/);
    await expect(helmTemplate({ api: { adminAccount: { tokenTTL: 'one day' } } })).rejects.toThrow(/tokenTTL/);
  });
});

describe('The generated Secret is named <release>-api and holds the four keys', () => {
  it('renders <release>-api with api.adminAccount.enabled true and tokenTTL 24h by default', () => {
    const data = secretData(findObject(defaults, 'Secret', 'platform-api'));
    expect(Object.keys(data).sort()).toEqual([...ADMIN_SETTING_KEYS].sort());
    expect(data.ADMIN_ACCOUNT_ENABLED).toBe('true');
    expect(data.ADMIN_ACCOUNT_TOKEN_TTL).toBe('24h');
  });

  it('generates a random $2a$ cost-10 hash and a random 64-character key when they are empty', () => {
    const data = secretData(findObject(defaults, 'Secret', 'platform-api'));
    expect(data.ADMIN_ACCOUNT_PASSWORD_HASH).toMatch(/^\$2a\$10\$[./A-Za-z0-9]{53}$/);
    expect(data.ADMIN_ACCOUNT_TOKEN_SIGNING_KEY).toMatch(/^[A-Za-z0-9]{64}$/);
  });

  it('cannot keep generated values stable without a cluster to look them up in (the documented limit)', () => {
    const [first, second] = [defaults, mountedFile].map((objects) =>
      secretData(findObject(objects, 'Secret', 'platform-api')),
    );
    expect(second!.ADMIN_ACCOUNT_TOKEN_SIGNING_KEY).not.toBe(first!.ADMIN_ACCOUNT_TOKEN_SIGNING_KEY);
  });

  it('uses the given values as they are', () => {
    expect(secretData(findObject(given, 'Secret', 'platform-api'))).toEqual({
      ADMIN_ACCOUNT_ENABLED: 'false',
      ADMIN_ACCOUNT_PASSWORD_HASH: GIVEN_HASH,
      ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: GIVEN_KEY,
      ADMIN_ACCOUNT_TOKEN_TTL: '1h',
    });
  });

  it('names everything after fullnameOverride when it is set', async () => {
    const objects = await helmTemplate({ fullnameOverride: 'papi' });
    expect(secrets(objects).map((secret) => secret.metadata.name)).toEqual(['papi-api']);
    expect(knativeServices(objects).map((service) => service.metadata.name)).toEqual(
      FUNCTION_NAMES.map((name) => `papi-${name}`),
    );
  });
});

describe('api.secret.name: no Secret of its own; the settings are read from the named Secret, which must hold all four keys', () => {
  it('renders no Secret and gives every function the named Secret as its environment, all four keys required', () => {
    expect(secrets(named)).toEqual([]);
    for (const service of knativeServices(named)) {
      expect(container(service).envFrom).toEqual([{ secretRef: { name: 'existing-admin' } }]);
      expect(env(service, 'ADMIN_SECRET_SOURCE')).toBe('env');
    }
  });

  it('lets the API server read and watch exactly that Secret', () => {
    const role = findObject(namedKubernetes, 'Role', 'platform-api-secret') as KubeObject & {
      rules: Array<{ resourceNames: string[]; verbs: string[] }>;
    };
    expect(role.rules).toEqual([
      { apiGroups: [''], resources: ['secrets'], resourceNames: ['existing-admin'], verbs: ['get', 'list', 'watch'] },
    ]);
    for (const service of knativeServices(namedKubernetes))
      expect(env(service, 'ADMIN_SECRET_SOURCE')).toBe('kubernetes:platform-system/existing-admin');
  });

  it('mounts the Secret as a watched folder with source file, and renders no Kubernetes Secret for Secrets Manager', () => {
    for (const service of knativeServices(mountedFile)) {
      expect(env(service, 'ADMIN_SECRET_SOURCE')).toBe('file:/var/run/secrets/platform-api/admin');
      expect(template(service).spec.volumes).toEqual([
        { name: 'admin-secret', secret: { secretName: 'platform-api' } },
      ]);
    }
    expect(secrets(awsSecret)).toEqual([]);
    for (const service of knativeServices(awsSecret)) {
      expect(env(service, 'ADMIN_SECRET_SOURCE')).toBe('aws-secretsmanager:platform/admin');
      expect(env(service, 'AWS_REGION')).toBe('eu-west-1');
      expect(env(service, 'ADMIN_SECRET_POLL_INTERVAL')).toBe('15s');
      expect(container(service).envFrom).toBeUndefined();
    }
  });
});

describe('Changing the keys restarts the API server: the Secret contents are hashed into every revision template', () => {
  it('puts the hash of the Secret as rendered on every Knative revision template', () => {
    const data = findObject(given, 'Secret', 'platform-api').data as Record<string, string>;
    const sorted = Object.fromEntries(
      Object.keys(data)
        .sort()
        .map((key) => [key, data[key]]),
    );
    const expected = createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
    expect(checksums(given)).toEqual(FUNCTION_NAMES.map(() => expected));
  });

  it('stays put when nothing in the Secret changes, other values included', async () => {
    const rescaled = await helmTemplate({ ...GIVEN, functions: { defaults: { maxScale: 3 } } });
    expect(checksums(givenAgain)).toEqual(checksums(given));
    expect(checksums(rescaled)).toEqual(checksums(given));
  });

  it('changes when any of the four keys changes', async () => {
    const variants = await Promise.all([
      helmTemplate({
        ...GIVEN,
        api: { ...GIVEN.api, adminAccount: { ...GIVEN.api.adminAccount, tokenSigningKey: 'r'.repeat(64) } },
      }),
      helmTemplate({ ...GIVEN, api: { ...GIVEN.api, adminAccount: { ...GIVEN.api.adminAccount, enabled: true } } }),
      helmTemplate({ ...GIVEN, api: { ...GIVEN.api, adminAccount: { ...GIVEN.api.adminAccount, tokenTTL: '2h' } } }),
    ]);
    for (const variant of variants) expect(checksums(variant)[0]).not.toBe(checksums(given)[0]);
  });

  it('is stable for a named Secret the chart cannot read (no cluster), and differs between Secrets', async () => {
    const other = await helmTemplate({ api: { secret: { name: 'other-admin' } } });
    expect(new Set(checksums(named)).size).toBe(1);
    expect(checksums(await helmTemplate({ api: { secret: { name: 'existing-admin' } } }))).toEqual(checksums(named));
    expect(checksums(other)[0]).not.toBe(checksums(named)[0]);
  });
});

describe('One Knative Service per function, from one image selected by FUNCTION_TARGET', () => {
  it('renders a Service for every function in the route table, all from the same image', () => {
    const services = knativeServices(defaults);
    expect(services.map((service) => service.metadata.name)).toEqual(FUNCTION_NAMES.map((name) => `platform-${name}`));
    expect(new Set(services.map((service) => container(service).image))).toEqual(
      new Set(['ghcr.io/platform/platform-api:0.1.0']),
    );
    for (const name of FUNCTION_NAMES)
      expect(env(findObject(defaults, 'Service', `platform-${name}`), 'FUNCTION_TARGET')).toBe(name);
  });

  it('keeps every function cluster-local behind the router, with autoscaling, concurrency and probes', () => {
    for (const service of knativeServices(defaults)) {
      expect(service.metadata.labels!['networking.knative.dev/visibility']).toBe('cluster-local');
      const revision = template(service);
      expect(Object.keys(revision.metadata.annotations)).toEqual(
        expect.arrayContaining([
          'autoscaling.knative.dev/min-scale',
          'autoscaling.knative.dev/max-scale',
          'autoscaling.knative.dev/target',
        ]),
      );
      expect(revision.spec.containerConcurrency).toBeGreaterThan(0);
      expect(revision.spec.serviceAccountName).toBe('platform-api');
      expect(container(service).readinessProbe.httpGet.path).toBe('/readyz');
      expect(container(service).livenessProbe.httpGet.path).toBe('/healthz');
    }
  });

  it('gives run-logs a long timeout and the others a shorter one', () => {
    const timeouts = Object.fromEntries(
      knativeServices(defaults).map((service) => [service.metadata.name, template(service).spec.timeoutSeconds]),
    );
    expect(timeouts['platform-run-logs']).toBe(3600);
    for (const name of FUNCTION_NAMES.filter((name) => name !== 'run-logs'))
      expect(timeouts[`platform-${name}`]).toBeLessThan(3600);
  });

  it('passes api.trustedProxyHops (default 3: Gateway, Knative local gateway, queue-proxy) as TRUSTED_PROXY_HOPS to every function', async () => {
    for (const service of functionServices(defaults)) expect(env(service, 'TRUSTED_PROXY_HOPS')).toBe('3');
    for (const service of functionServices(await helmTemplate({ api: { trustedProxyHops: 4 } })))
      expect(env(service, 'TRUSTED_PROXY_HOPS')).toBe('4');
    await expect(helmTemplate({ api: { trustedProxyHops: -1 } })).rejects.toThrow(/trustedProxyHops/);
    await expect(helmTemplate({ api: { trustedProxyHops: '3' } })).rejects.toThrow(/trustedProxyHops/);
  });

  it('passes the API group, the public URL and the OIDC settings to every function', () => {
    for (const service of functionServices(given)) {
      expect(env(service, 'API_GROUP')).toBe('infra.example.io');
      expect(env(service, 'API_BASE_URL')).toBe('https://platform.example.io');
      expect(env(service, 'OIDC_ISSUER_URL')).toBe('https://id.example.io');
      expect(env(service, 'OIDC_ADDITIONAL_SCOPES')).toBe('groups,email');
      // Issue 38 item 2: the prefixes of OIDC names; an empty one leaves the server's default (`oidc:`).
      expect(env(service, 'OIDC_USERNAME_PREFIX')).toBe('corp:');
      expect(env(service, 'OIDC_GROUPS_PREFIX')).toBe('');
    }
  });
});

describe('Issue 36: the login function has the database (failed logins shared by every instance, and its audit events) and the login budgets', () => {
  const login = (objects: KubeObject[]) =>
    functionServices(objects).find((service) => service.metadata.labels?.['app.kubernetes.io/component'] === 'login')!;
  const loginSettings = (objects: KubeObject[]) =>
    loadSettings(
      Object.fromEntries(
        container(login(objects))
          .env.filter((variable) => variable.name.startsWith('LOGIN_'))
          .map((variable) => [variable.name, variable.value]),
      ),
    ).login;

  it("gives every function, login included, DATABASE_URL from api.database's Secret", async () => {
    const withDatabase = await helmTemplate({ api: { database: { secretName: 'platform-db', secretKey: 'url' } } });
    expect(functionServices(withDatabase).map((service) => container(service).name)).toContain('login');
    for (const service of functionServices(withDatabase)) {
      expect(container(service).env.find((variable) => variable.name === 'DATABASE_URL')).toEqual({
        name: 'DATABASE_URL',
        valueFrom: { secretKeyRef: { name: 'platform-db', key: 'url' } },
      });
    }
  });

  it('passes api.login to the login function alone, in forms the server parses: by default a 5m window, 5 per client, 20 for the account, /64', async () => {
    expect(loginSettings(defaults)).toEqual({
      windowMs: 300_000,
      clientMaxFailures: 5,
      accountMaxFailures: 20,
      ipv6PrefixLength: 64,
    });
    const given = await helmTemplate({
      api: {
        login: { failureWindow: '15m', clientMaxFailures: 3, accountMaxFailures: 1_000_000, ipv6PrefixLength: 56 },
      },
    });
    // A large number stays a whole number (Helm reads YAML numbers as floats: 1e+06 would stop the server).
    expect(loginSettings(given)).toEqual({
      windowMs: 900_000,
      clientMaxFailures: 3,
      accountMaxFailures: 1_000_000,
      ipv6PrefixLength: 56,
    });
    for (const service of functionServices(defaults).filter((service) => service !== login(defaults)))
      expect(container(service).env.filter((variable) => variable.name.startsWith('LOGIN_'))).toEqual([]);
  });

  it('refuses a login value the server would refuse, before rendering anything', async () => {
    await expect(helmTemplate({ api: { login: { failureWindow: '5 minutes' } } })).rejects.toThrow(/failureWindow/);
    await expect(helmTemplate({ api: { login: { ipv6PrefixLength: 129 } } })).rejects.toThrow(/ipv6PrefixLength/);
    await expect(helmTemplate({ api: { login: { accountMaxFailures: 0 } } })).rejects.toThrow(/accountMaxFailures/);
  });
});

describe('Issues 35 and 37: api.history and api.planApprovalMaxAge reach every function as the settings the server reads', () => {
  const HISTORY_VARIABLES = [
    'RUN_HISTORY_RETENTION',
    'RUN_LOG_RETENTION',
    'RUN_LOG_COMPACTION_DELAY',
    'AUDIT_RETENTION',
    'PLAN_APPROVAL_MAX_AGE',
  ];
  const historySettings = (service: KubeObject) => {
    const settings = loadSettings(
      Object.fromEntries(
        container(service)
          .env.filter((variable) => HISTORY_VARIABLES.includes(variable.name))
          .map((variable) => [variable.name, variable.value]),
      ),
    );
    return {
      runs: settings.runHistory.retentionMs,
      runLogs: settings.runHistory.logRetentionMs,
      compactionDelay: settings.runHistory.compactionDelayMs,
      auditEvents: settings.audit.retentionMs,
      planApprovalMaxAge: settings.server.planApprovalMaxAgeMs,
    };
  };
  const HOUR = 3_600_000;

  it("sets none by default, so the server's documented defaults hold (365 and 90 days, 1m, 90 days, 24h)", () => {
    for (const service of functionServices(defaults)) {
      expect(container(service).env.filter((variable) => HISTORY_VARIABLES.includes(variable.name))).toEqual([]);
      expect(historySettings(service)).toEqual({
        runs: 8760 * HOUR,
        runLogs: 2160 * HOUR,
        compactionDelay: 60_000,
        auditEvents: 2160 * HOUR,
        planApprovalMaxAge: 24 * HOUR,
      });
    }
  });

  it('gives each value given to every function (the ones keeping run history run the passes), in a form the server parses', async () => {
    const rendered = await helmTemplate({
      api: {
        history: { runs: '720h', runLogs: '168h', runLogCompactionDelay: '0s', auditEvents: '8760h' },
        planApprovalMaxAge: '2h30m',
      },
    });
    const services = functionServices(rendered);
    expect(services.length).toBe(FUNCTION_NAMES.length);
    for (const service of services)
      expect(historySettings(service)).toEqual({
        runs: 720 * HOUR,
        runLogs: 168 * HOUR,
        compactionDelay: 0,
        auditEvents: 8760 * HOUR,
        planApprovalMaxAge: 2.5 * HOUR,
      });
  });

  it('refuses a value that is not a Go duration before rendering anything', async () => {
    await expect(helmTemplate({ api: { history: { runs: '30 days' } } })).rejects.toThrow(/runs/);
    await expect(helmTemplate({ api: { history: { auditEvents: '90d' } } })).rejects.toThrow(/auditEvents/);
    await expect(helmTemplate({ api: { planApprovalMaxAge: '1 day' } })).rejects.toThrow(/planApprovalMaxAge/);
  });
});

describe('Path routing: the HTTPRoute matches the route table, plus /bridge/ to the optional bridge', () => {
  type Rule = {
    matches: Array<{ path: { type: string; value: string } }>;
    filters: Array<{ urlRewrite: { hostname: string } }>;
    backendRefs: Array<{ name: string; namespace: string; port: number }>;
  };
  const renderedRules = (objects: KubeObject[], release = 'platform', namespace = 'platform-system') =>
    (findObject(objects, 'HTTPRoute', release).spec as { rules: Rule[] }).rules.flatMap((rule) =>
      rule.matches.map((match) => ({
        type: match.path.type,
        value: match.path.value,
        target: rule.filters[0]!.urlRewrite.hostname.replace(`.${namespace}.svc.cluster.local`, '').replace(
          `${release}-`,
          '',
        ),
      })),
    );
  const sortRules = <T extends { type: string; value: string }>(rules: T[]) =>
    [...rules].sort((a, b) => `${a.type} ${a.value}`.localeCompare(`${b.type} ${b.value}`));

  it('ships files/gateway-rules.json exactly as the route table derives it (npm run chart:generate)', async () => {
    expect(await readFile(join(CHART, 'files/gateway-rules.json'), 'utf8')).toBe(gatewayRulesFile());
  });

  it('routes every path rule of the route table, with the API group substituted, to its function or the bridge', () => {
    expect(sortRules(renderedRules(given))).toEqual(sortRules(gatewayRules(routeTable('infra.example.io'))));
  });

  it('stays within the Gateway API limits: at most 16 rules per HTTPRoute and 64 matches per rule, one rule per backend', () => {
    const rules = (findObject(given, 'HTTPRoute', 'platform').spec as { rules: Rule[] }).rules;
    expect(gatewayRules(routeTable('infra.example.io')).length).toBeGreaterThan(16);
    expect(rules.length).toBeLessThanOrEqual(16);
    for (const rule of rules) expect(rule.matches.length).toBeLessThanOrEqual(64);
    const backends = rules.map((rule) => rule.filters[0]!.urlRewrite.hostname);
    expect(new Set(backends).size).toBe(rules.length);
  });

  it('sends every path where the route table sends it, under Gateway API precedence across the whole route', () => {
    const group = 'infra.example.io';
    const tableRules = gatewayRules(routeTable(group));
    const rendered = renderedRules(given);
    const samplePaths = [
      ...routeTable(group).map((route) => route.path.replace(/\{[a-zA-Z]+\}/g, 'x').replace(/\/\*$/, '/a/b')),
      ...tableRules.map((rule) => rule.value),
      ...tableRules.map((rule) => `${rule.value}x`),
      ...tableRules.map((rule) => `${rule.value.replace(/\/$/, '')}/deeper/still`),
      '/',
      '/unknown',
      '/bridge',
      '/bridge/callback',
      '/internal',
      '/internalx',
      `/apis/${group}/v1alpha1/projectsx`,
    ];
    for (const path of samplePaths)
      expect({ path, target: gatewayApiTarget(rendered, path) }).toEqual({
        path,
        target: resolveGatewayTarget(tableRules, path),
      });
  });

  it('leaves /bridge/ out when no bridge is deployed', () => {
    expect(sortRules(renderedRules(defaults))).toEqual(
      sortRules(gatewayRules(routeTable('platform.dev')).filter((rule) => rule.target !== 'bridge')),
    );
  });

  it('sends every rule to a Knative Service the chart renders, through the Knative local gateway', () => {
    const hostnames = knativeServices(given).map(
      (service) => `${service.metadata.name}.platform-system.svc.cluster.local`,
    );
    for (const rule of (findObject(given, 'HTTPRoute', 'platform').spec as { rules: Rule[] }).rules) {
      expect(hostnames).toContain(rule.filters[0]!.urlRewrite.hostname);
      expect(rule.backendRefs).toEqual([{ name: 'knative-local-gateway', namespace: 'istio-system', port: 80 }]);
    }
    const grant = findObject(given, 'ReferenceGrant', 'platform-platform-system-httproute');
    expect(grant.metadata.namespace).toBe('istio-system');
  });
});

/**
 * The backend a Gateway API implementation picks for a path: among the matches of every rule of
 * the route, an Exact match first, then the PathPrefix with the most characters (matching whole
 * path elements); a tie goes to the earlier rule. No match: no route (404 at the Gateway).
 */
function gatewayApiTarget(
  matches: Array<{ type: string; value: string; target: string }>,
  path: string,
): string | undefined {
  const elementPrefix = (prefix: string) =>
    prefix === '/' || path === prefix.replace(/\/$/, '') || path.startsWith(`${prefix.replace(/\/$/, '')}/`);
  const candidates = matches.filter((match) =>
    match.type === 'Exact' ? match.value === path : elementPrefix(match.value),
  );
  const rank = (match: { type: string; value: string }) =>
    match.type === 'Exact' ? Number.MAX_SAFE_INTEGER : match.value.length;
  return candidates.reduce<(typeof candidates)[number] | undefined>(
    (best, match) => (!best || rank(match) > rank(best) ? match : best),
    undefined,
  )?.target;
}

describe('RBAC: the API server, the workspace controller and platform-admin', () => {
  type Rules = Array<{
    apiGroups?: string[];
    resources?: string[];
    resourceNames?: string[];
    nonResourceURLs?: string[];
    verbs: string[];
  }>;
  const rulesOf = (name: string) => findObject(defaults, 'ClusterRole', name).rules as Rules;
  const allows = (rules: Rules, group: string, resource: string, verb: string) =>
    rules.some(
      (rule) =>
        rule.apiGroups?.includes(group) &&
        (rule.resources?.includes(resource) || rule.resources?.includes('*')) &&
        (rule.verbs.includes(verb) || rule.verbs.includes('*')),
    );

  it('lets the API server write the platform resources, review tokens and access, and read ServiceAccounts', () => {
    const rules = rulesOf('platform-api');
    for (const kind of ['projects', 'workspaces', 'rollouts', 'variablesets', 'notifications', 'runtasks'])
      expect(allows(rules, 'platform.dev', kind, 'create')).toBe(true);
    expect(allows(rules, 'authentication.k8s.io', 'tokenreviews', 'create')).toBe(true);
    expect(allows(rules, 'authorization.k8s.io', 'subjectaccessreviews', 'create')).toBe(true);
    expect(allows(rules, '', 'serviceaccounts', 'watch')).toBe(true);
    expect(allows(rules, '', 'secrets', 'get')).toBe(false);
    const binding = findObject(defaults, 'ClusterRoleBinding', 'platform-api') as KubeObject & { subjects: unknown[] };
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'platform-api', namespace: 'platform-system' }]);
  });

  it("binds the API server to system:service-account-issuer-discovery, to read the cluster's ServiceAccount key set", () => {
    const binding = findObject(defaults, 'ClusterRoleBinding', 'platform-api-issuer-discovery') as KubeObject & {
      roleRef: unknown;
      subjects: unknown[];
    };
    expect(binding.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'system:service-account-issuer-discovery',
    });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'platform-api', namespace: 'platform-system' }]);
  });

  it('lets the API server bind only the project-secrets and project-tokens ClusterRoles, and those hold nothing but the Secret and token verbs', () => {
    const rules = rulesOf('platform-api');
    expect(rules).toContainEqual({
      apiGroups: ['rbac.authorization.k8s.io'],
      resources: ['clusterroles'],
      resourceNames: ['platform-project-secrets', 'platform-project-tokens'],
      verbs: ['bind'],
    });
    expect(
      rules.filter(
        (rule) => rule.verbs.includes('bind') || rule.verbs.includes('escalate') || rule.verbs.includes('*'),
      ),
    ).toHaveLength(1);
    expect(allows(rules, 'rbac.authorization.k8s.io', 'rolebindings', 'create')).toBe(true);
    expect(allows(rules, 'rbac.authorization.k8s.io', 'roles', 'create')).toBe(false);
    expect(allows(rules, 'rbac.authorization.k8s.io', 'clusterrolebindings', 'create')).toBe(false);
    expect(rulesOf('platform-project-secrets')).toEqual([
      {
        apiGroups: [''],
        resources: ['secrets'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      },
    ]);
    // Issue 46: a Project token is a ServiceAccount in the Project's namespace with a bound TokenRequest.
    expect(rulesOf('platform-project-tokens')).toEqual([
      { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get', 'create', 'delete'] },
      { apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] },
    ]);
    expect(allows(rules, '', 'serviceaccounts', 'create')).toBe(false);
    expect(allows(rules, '', 'serviceaccounts/token', 'create')).toBe(false);
    expect(
      defaults.filter(
        (object) =>
          object.kind === 'ClusterRoleBinding' &&
          ['platform-project-secrets', 'platform-project-tokens'].includes((object.roleRef as { name: string }).name),
      ),
    ).toEqual([]);
  });

  it('tells every function the ClusterRole to bind and its own ServiceAccount (namespace from the downward API)', () => {
    for (const service of functionServices(defaults)) {
      expect(env(service, 'PROJECT_SECRETS_CLUSTER_ROLE')).toBe('platform-project-secrets');
      expect(env(service, 'PROJECT_TOKENS_CLUSTER_ROLE')).toBe('platform-project-tokens');
      expect(env(service, 'API_SERVICE_ACCOUNT')).toBe(template(service).spec.serviceAccountName);
      expect(container(service).env.find((variable) => variable.name === 'POD_NAMESPACE')).toEqual({
        name: 'POD_NAMESPACE',
        valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } },
      });
    }
  });

  it('lets the controller call /internal/*', () => {
    expect(rulesOf('platform-controller').find((rule) => rule.nonResourceURLs)?.nonResourceURLs).toContain(
      '/internal/*',
    );
    findObject(defaults, 'ServiceAccount', 'platform-controller');
  });

  it('renders platform-admin with the claim mapping of the platform-eng group', () => {
    const account = findObject(given, 'ServiceAccount', 'platform-admin');
    expect(JSON.parse(account.metadata.annotations!['infra.example.io/claims']!)).toEqual({ groups: ['platform-eng'] });
    expect(allows(rulesOf('platform-platform-admin'), 'platform.dev', 'workspaces', 'delete')).toBe(true);
  });
});

describe('The custom resource definitions', () => {
  type Schema = {
    type?: string;
    properties?: Record<string, Schema>;
    items?: Schema;
    'x-kubernetes-preserve-unknown-fields'?: boolean;
  };
  const crds = (objects: KubeObject[]) =>
    objects.filter((object) => object.kind === 'CustomResourceDefinition') as Array<
      KubeObject & {
        spec: {
          group: string;
          scope: string;
          names: { kind: string };
          versions: Array<{
            subresources?: { status?: object };
            additionalPrinterColumns?: unknown[];
            schema: { openAPIV3Schema: Schema };
          }>;
        };
      }
    >;
  const untyped = (schema: Schema, path: string): string[] => [
    ...(schema.type || schema['x-kubernetes-preserve-unknown-fields'] ? [] : [path]),
    ...Object.entries(schema.properties ?? {}).flatMap(([name, child]) => untyped(child, `${path}.${name}`)),
    ...(schema.items ? untyped(schema.items, `${path}[]`) : []),
  ];

  it('defines Project (cluster-scoped), Workspace, Rollout, VariableSet, Notification and RunTask in the API group, with status and printer columns', () => {
    const rendered = crds(given);
    expect(rendered.map((crd) => crd.spec.names.kind).sort()).toEqual([
      'Notification',
      'Project',
      'Rollout',
      'RunTask',
      'VariableSet',
      'Workspace',
    ]);
    for (const crd of rendered) {
      expect(crd.spec.group).toBe('infra.example.io');
      expect(crd.spec.scope).toBe(crd.spec.names.kind === 'Project' ? 'Cluster' : 'Namespaced');
      expect(crd.spec.versions[0]!.subresources?.status).toEqual({});
      expect(crd.spec.versions[0]!.additionalPrinterColumns?.length).toBeGreaterThan(0);
    }
  });

  it('has structural schemas: every field has a type', () => {
    for (const crd of crds(defaults))
      expect(untyped(crd.spec.versions[0]!.schema.openAPIV3Schema, crd.spec.names.kind)).toEqual([]);
  });
});

describe('Every rendered object validates against its schema (Knative Serving and Gateway API included)', () => {
  it('validates the objects of every value set, unknown fields refused', async () => {
    expect(
      await schemaProblems([
        ...defaults,
        ...given,
        ...named,
        ...namedKubernetes,
        ...mountedFile,
        ...awsSecret,
        ...scraped,
        ...metricsOff,
      ]),
    ).toEqual([]);
  });

  it('reports an unknown field deep inside a Knative Service and a wrong type in an HTTPRoute', async () => {
    const service = structuredClone(findObject(defaults, 'Service', 'platform-login'));
    (template(service).spec.containers[0] as unknown as Record<string, unknown>).livenessProbes = {};
    const route = structuredClone(findObject(defaults, 'HTTPRoute', 'platform'));
    (route.spec as { rules: Array<{ backendRefs: Array<{ port: unknown }> }> }).rules[0]!.backendRefs[0]!.port =
      'eighty';
    const problems = await schemaProblems([service, route]);
    expect(
      problems.some((problem) => problem.startsWith('Service platform-login') && problem.includes('livenessProbes')),
    ).toBe(true);
    expect(problems.some((problem) => problem.startsWith('HTTPRoute platform'))).toBe(true);
  });

  it('refuses an HTTPRoute with more than 16 rules or a rule with more than 64 matches, as the Gateway API CRD does', async () => {
    const route = findObject(defaults, 'HTTPRoute', 'platform');
    type Spec = { rules: Array<{ matches: unknown[] }> };
    const tooManyRules = structuredClone(route);
    const rules = (tooManyRules.spec as Spec).rules;
    (tooManyRules.spec as Spec).rules = Array.from({ length: 17 }, (_, index) => rules[index % rules.length]!);
    const tooManyMatches = structuredClone(route);
    const firstRule = (tooManyMatches.spec as Spec).rules[0]!;
    firstRule.matches = Array.from({ length: 65 }, (_, index) => ({
      path: { type: 'Exact', value: `/path-${index}` },
    }));
    const [rulesProblems, matchesProblems] = await Promise.all([
      schemaProblems([tooManyRules]),
      schemaProblems([tooManyMatches]),
    ]);
    expect(rulesProblems.join('\n')).toMatch(/HTTPRoute platform: .*rules.*(16|maxItems)/);
    expect(matchesProblems.join('\n')).toMatch(/HTTPRoute platform: .*matches.*(64|maxItems)/);
  });
});

describe('issue 23: the scrape configuration of /metrics (docs/observability.md)', () => {
  type Rule = { nonResourceURLs?: string[]; verbs: string[]; apiGroups?: string[] };
  const monitor = () =>
    findObject(scraped, 'ServiceMonitor', 'platform') as KubeObject & {
      spec: {
        selector: { matchLabels: Record<string, string> };
        endpoints: Array<{ port: string; path: string; scheme: string; bearerTokenFile: string }>;
      };
    };

  it('renders a ClusterRole allowing exactly get on the non-resource URL /metrics, and no binding without a scraper', () => {
    const rules = findObject(defaults, 'ClusterRole', 'platform-metrics-reader').rules as Rule[];
    expect(rules).toEqual([{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]);
    expect(
      defaults.some(
        (object) => object.kind === 'ClusterRoleBinding' && object.metadata.name === 'platform-metrics-reader',
      ),
    ).toBe(false);
  });

  it("binds it to the configured scraper's ServiceAccount", () => {
    const binding = findObject(scraped, 'ClusterRoleBinding', 'platform-metrics-reader') as KubeObject & {
      subjects: unknown[];
      roleRef: { name: string };
    };
    expect(binding.roleRef.name).toBe('platform-metrics-reader');
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'prometheus-k8s', namespace: 'monitoring' }]);
  });

  it("renders no ServiceMonitor by default; with it on, one scraping every function pod on /metrics with the scraper's own token", () => {
    expect(defaults.some((object) => object.kind === 'ServiceMonitor')).toBe(false);
    const { spec, metadata } = monitor();
    expect(metadata.labels?.release).toBe('kube-prometheus-stack');
    expect(spec.endpoints).toEqual([
      expect.objectContaining({
        port: 'http-metrics',
        path: '/metrics',
        scheme: 'http',
        bearerTokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token',
      }),
    ]);
    const service = findObject(scraped, 'Service', 'platform-metrics') as KubeObject & {
      spec: { selector: Record<string, string>; ports: Array<{ name: string; targetPort: number }> };
    };
    expect(service.metadata.labels).toMatchObject(spec.selector.matchLabels);
    expect(service.spec.ports).toEqual([expect.objectContaining({ name: 'http-metrics', targetPort: 8080 })]);
    // The Service selects every function's pods (the revision templates' labels), the bridge's too is harmless.
    for (const knative of functionServices(scraped))
      expect(template(knative).metadata).toMatchObject({ labels: expect.objectContaining(service.spec.selector) });
  });

  it("puts the annotations of a scraper that discovers pods (Knative's collector) on every revision template, and METRICS=true", () => {
    for (const service of functionServices(defaults)) {
      expect(template(service).metadata.annotations).toMatchObject({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '8080',
        'prometheus.io/path': '/metrics',
      });
      expect(env(service, 'METRICS')).toBe('true');
    }
  });

  it('metrics.enabled false: METRICS=false, no annotations, no ClusterRole', () => {
    for (const service of functionServices(metricsOff)) {
      expect(template(service).metadata.annotations['prometheus.io/scrape']).toBeUndefined();
      expect(env(service, 'METRICS')).toBe('false');
    }
    expect(metricsOff.some((object) => object.metadata.name === 'platform-metrics-reader')).toBe(false);
  });

  it('ships the Grafana dashboard as a ConfigMap with the sidecar label, only when asked', async () => {
    expect(defaults.some((object) => object.kind === 'ConfigMap')).toBe(false);
    const configMap = findObject(scraped, 'ConfigMap', 'platform-dashboard') as KubeObject & {
      data: Record<string, string>;
    };
    expect(configMap.metadata.labels?.grafana_dashboard).toBe('1');
    expect(JSON.parse(configMap.data['platform-api.json']!)).toEqual(
      JSON.parse(await readFile(join(CHART, 'files/grafana-dashboard.json'), 'utf8')),
    );
  });

  it('refuses an unknown scheme for the ServiceMonitor', async () => {
    await expect(helmTemplate({ metrics: { serviceMonitor: { enabled: true, scheme: 'ftp' } } })).rejects.toThrow();
  });
});
