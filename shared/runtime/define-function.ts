import { isConnected, type AppContext } from '../app/app-context.ts';
import { apiError } from '../http/error-catalogue.ts';
import { KubernetesRestClient } from '../kubernetes/kubernetes-rest-client.ts';
import { checkPlatformCrdsServed } from '../resources/crd-readiness.ts';
import type { FunctionDefinition, FunctionModule, ReadinessCheck } from './function-definition.ts';

/**
 * A function's definition from its module and the process's context: its factory's handlers, given
 * the context its `cluster` fact promises, with its name and its readiness from its facts. Every
 * entry builds a function through here, so each fact is read in one way.
 */
export function defineFunction(module: FunctionModule, context: AppContext): FunctionDefinition {
  const handlers =
    module.cluster === 'on-first-use' ? module.create(context) : module.create(connected(module, context));
  if (module.maintainsRunHistory) context.runs.maintain();
  const checks = [
    ...module.readiness.map((check) => READINESS_CHECKS[check](context)),
    ...(module.runHistory ? [() => context.runs.checkReady()] : []),
  ];
  if (checks.length === 0) return { ...handlers, name: module.name };
  return {
    ...handlers,
    name: module.name,
    async readiness() {
      for (const check of checks) await check();
    },
  };
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
