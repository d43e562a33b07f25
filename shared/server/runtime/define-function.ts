import { isConnected, type AppContext } from '../app/app-context.ts';
import { apiError } from '../../base/http/error-catalogue.ts';
import { KubernetesRestClient } from '../../base/kubernetes/kubernetes-rest-client.ts';
import { checkPlatformCrdsServed } from '../../domain/resources/crd-readiness.ts';
import type { AppService, FunctionDefinition, FunctionModule, ReadinessCheck } from './function-definition.ts';

/**
 * A function's definition from its module and the process's context: its factory's handlers, given
 * the context its `cluster` fact promises, with its name and its readiness from its facts. Every
 * entry builds a function through here, so each fact is read in one way. `servedWith` are the
 * functions its process serves (itself alone but for `npm start`, which serves all five in one
 * process): its `/readyz` waits for what any of them needs, since they are ready or not together.
 * A function keeping run history checks its database now, in the background (`checkAtStart`), so an
 * unreachable one is logged at start with its cause without delaying the start.
 */
export function defineFunction(
  module: FunctionModule,
  context: AppContext,
  servedWith: readonly FunctionModule[] = [module],
): FunctionDefinition {
  const handlers =
    module.cluster === 'on-first-use'
      ? module.create(declaredServices(context, module.services))
      : module.create(declaredServices(connected(module, context), module.services));
  if (module.runHistory) context.runs.checkAtStart();
  if (module.maintainsRunHistory) context.runs.maintain();
  const readiness = readinessOf(servedWith, context);
  return readiness ? { ...handlers, name: module.name, readiness } : { ...handlers, name: module.name };
}

/** What `/readyz` waits for: each check the modules name, once, then their run history database. */
function readinessOf(modules: readonly FunctionModule[], context: AppContext): (() => Promise<void>) | undefined {
  const checks = [
    ...[...new Set(modules.flatMap((module) => module.readiness))].map((check) => READINESS_CHECKS[check](context)),
    ...(modules.some((module) => module.runHistory) ? [() => context.runs.checkReady()] : []),
  ];
  if (checks.length === 0) return undefined;
  return async () => {
    for (const check of checks) await check();
  };
}

/**
 * The services a module declared, read through to the context (its getters stay lazy: the login
 * throttle, the cluster connection), and nothing else: a service it did not declare is not there.
 */
function declaredServices<C extends AppContext, S extends AppService>(context: C, services: readonly S[]): Pick<C, S> {
  const declared = {} as Pick<C, S>;
  for (const service of services)
    Object.defineProperty(declared, service, { enumerable: true, get: () => context[service] });
  return declared;
}

function connected(module: FunctionModule, context: AppContext) {
  if (isConnected(context)) return context;
  // A wiring mistake of an entry, not a request's: the context must be built with the module's `cluster`.
  throw new Error(`${module.name} connects to the cluster at start, but its context was built to connect on first use`);
}

const READINESS_CHECKS: Record<ReadinessCheck, (context: AppContext) => () => Promise<void>> = {
  'platform-crds-served': (context) => {
    let rest: KubernetesRestClient | undefined;
    return async () => {
      const cluster = await context.cluster();
      // None configured (said once, at error level, when the connection was made): there is nothing
      // to ask, and asking would log a failed call at every probe.
      if (!cluster.configured)
        throw apiError('KubernetesUnavailable', 'no Kubernetes cluster is configured (KUBECONFIG or in-cluster)');
      rest ??= new KubernetesRestClient(cluster.kubeConfig, context.logger);
      await checkPlatformCrdsServed(rest, context.config.apiGroup);
    };
  },
};
