// Issue 21, item 4, "one place per fact": a function's facts (its name, when it connects to the
// cluster, whether it keeps run history, what its readiness waits for) live in its FunctionModule
// beside its factory, and every entry reads them there, through defineFunction: the Knative
// container, the functions-framework entry, the local gateway.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTION_MODULES } from '../../../functions/function-registry.ts';
import { FUNCTION_NAMES } from '../../../shared/contract/routes/route-table.ts';
import { createAppContext, type AppContext } from '../../../shared/server/app/app-context.ts';
import { loadSettings } from '../../../shared/base/config/settings.ts';
import { defineFunction } from '../../../shared/server/runtime/define-function.ts';
import { functionModule, type FunctionModule } from '../../../shared/server/runtime/function-definition.ts';
import { adminEnv } from '../../support/admin-fixtures.ts';
import { REPO_ROOT, silentLogger } from '../../support/function-servers.ts';

describe('issue 21: every function is one FunctionModule, with its facts', () => {
  it('one module per function name of the route table, named as its key', () => {
    expect(Object.keys(FUNCTION_MODULES).sort()).toEqual([...FUNCTION_NAMES].sort());
    for (const [name, module] of Object.entries(FUNCTION_MODULES)) expect(module.name).toBe(name);
  });

  it('every function connects to the cluster on first use (no Kubernetes client loaded for /healthz or the admin; issue 25 for resources)', () => {
    expect(Object.fromEntries(Object.values(FUNCTION_MODULES).map((module) => [module.name, module.cluster]))).toEqual({
      login: 'on-first-use',
      'public-config': 'on-first-use',
      resources: 'on-first-use',
      internal: 'on-first-use',
      'run-logs': 'on-first-use',
    });
  });

  it('issue 35: resources, which owns the run records, keeps the history bounded (compaction, retention); no other function does', () => {
    expect(
      Object.values(FUNCTION_MODULES)
        .filter((module) => module.maintainsRunHistory)
        .map((module) => module.name),
    ).toEqual(['resources']);
  });

  it('resources, internal and run-logs keep run history; login and public-config do not', () => {
    expect(
      Object.values(FUNCTION_MODULES)
        .filter((module) => module.runHistory)
        .map((module) => module.name)
        .sort(),
    ).toEqual(['internal', 'resources', 'run-logs']);
  });
});

describe('issue 21: readiness is a fact of the module; defineFunction builds it and hands the context the module promises', () => {
  let context: AppContext;
  beforeAll(async () => {
    // Production without DATABASE_URL and without a cluster: nothing starts, every dependency answers 503.
    context = await createAppContext(loadSettings(adminEnv()), {
      cluster: 'on-first-use',
      logger: silentLogger,
      auditSinks: [],
    });
  });
  afterAll(() => context.close());

  it('resources also waits for the cluster to serve the platform kinds; no other function waits for more than its database', () => {
    expect(
      Object.fromEntries(Object.values(FUNCTION_MODULES).map((module) => [module.name, module.readiness])),
    ).toEqual({ login: [], 'public-config': [], resources: ['platform-crds-served'], internal: [], 'run-logs': [] });
  });

  it('a function keeping run history is not ready without its database; one that keeps none has no readiness check', async () => {
    for (const name of ['internal', 'run-logs'] as const) {
      const definition = defineFunction(FUNCTION_MODULES[name], context);
      expect(definition.name).toBe(name);
      await expect(definition.readiness!(), name).rejects.toMatchObject({
        status: 503,
        reason: 'DatabaseNotConfigured',
      });
    }
    for (const name of ['login', 'public-config'] as const)
      expect(defineFunction(FUNCTION_MODULES[name], context).readiness, name).toBeUndefined();
  });

  it('a context that connects on first use holds no connection, and an at-start function refuses to be built on it', () => {
    expect(context.kubernetes).toBeUndefined();
    const atStart: FunctionModule = { ...FUNCTION_MODULES.resources, cluster: 'at-start' };
    expect(() => defineFunction(atStart, context)).toThrow(/connects to the cluster at start/);
  });

  it("issue 25: resources is built without a connection; its /readyz connects and asks the cluster for the platform's kinds", async () => {
    const definition = defineFunction(FUNCTION_MODULES.resources, context);
    expect(context.kubernetes).toBeUndefined();
    // Production without a cluster: the connection points nowhere, so the kinds cannot be listed.
    await expect(definition.readiness!()).rejects.toMatchObject({ status: 503, reason: 'KubernetesUnavailable' });
    expect(context.kubernetes?.configured).toBe(false);
  });
});

/** The services a function's sources ask of its context: `context.X`, and `const { X, Y } = context`. */
function servicesUsedIn(folder: string): string[] {
  const files = (readdirSync(folder, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts'));
  const used = new Set<string>();
  for (const file of files) {
    const code = readFileSync(join(folder, file), 'utf8');
    for (const match of code.matchAll(/\bcontext\.([a-zA-Z]+)\b(?!['/])/g)) used.add(match[1]!);
    for (const match of code.matchAll(/const \{([^}]*)\} = context\b/g))
      for (const name of match[1]!.split(',')) used.add(name.trim());
  }
  return [...used].sort();
}

describe('Issue 43 (house review 9): a function declares the services it uses, and gets those alone', () => {
  it('each of the five declares exactly the services its sources use', () => {
    for (const module of Object.values(FUNCTION_MODULES))
      expect([...module.services].sort(), module.name).toEqual(
        servicesUsedIn(join(REPO_ROOT, 'functions', module.name)),
      );
  });

  it('the declared services, as the modules list them', () => {
    expect(
      Object.fromEntries(Object.values(FUNCTION_MODULES).map((module) => [module.name, [...module.services].sort()])),
    ).toEqual({
      login: ['adminSettings', 'config', 'logger', 'loginThrottle', 'metrics', 'passwordVerifier'],
      'public-config': ['adminSettings', 'config', 'identity', 'routes'],
      resources: [
        'auditStore',
        'authorizer',
        'cluster',
        'config',
        'logger',
        'metrics',
        'routes',
        'runs',
        'streamSessions',
      ],
      internal: ['cluster', 'config', 'logger', 'outbound', 'runs'],
      'run-logs': ['config', 'logger', 'metrics', 'runs', 'streamSessions'],
    });
  });

  it('defineFunction hands a factory its declared services and no other; a planted use of another does not compile', async () => {
    const context = await createAppContext(loadSettings(adminEnv()), {
      cluster: 'on-first-use',
      logger: silentLogger,
      auditSinks: [],
    });
    try {
      let given: Record<string, unknown> = {};
      const planted = functionModule({
        name: 'public-config',
        cluster: 'on-first-use',
        runHistory: false,
        maintainsRunHistory: false,
        readiness: [],
        services: ['config', 'logger'],
        create: (declared) => {
          given = { ...declared };
          // @ts-expect-error metrics was not declared: the factory's type has no such member.
          given.metrics = declared.metrics;
          return { handlers: {} };
        },
      });
      defineFunction(planted, context);
      expect(Object.keys(given).sort()).toEqual(['config', 'logger', 'metrics']);
      expect(given.config).toBe(context.config);
      expect(given.metrics).toBeUndefined();
    } finally {
      await context.close();
    }
  });
});
