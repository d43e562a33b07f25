// Issue 21, item 4, "one place per fact": a function's facts (its name, when it connects to the
// cluster, whether it keeps run history) live in its FunctionModule beside its factory, and every entry
// reads them there: the Knative container, the functions-framework entry, the local gateway.
import { describe, expect, it } from 'vitest';
import { FUNCTION_MODULES } from '../../functions/function-registry.ts';
import { FUNCTION_NAMES } from '../../shared/routes/route-table.ts';

describe('issue 21: every function is one FunctionModule, with its facts', () => {
  it('one module per function name of the route table, named as its key', () => {
    expect(Object.keys(FUNCTION_MODULES).sort()).toEqual([...FUNCTION_NAMES].sort());
    for (const [name, module] of Object.entries(FUNCTION_MODULES)) expect(module.name).toBe(name);
  });

  it('only resources connects to the cluster at start; the others on first use (no Kubernetes client loaded for the admin)', () => {
    expect(Object.fromEntries(Object.values(FUNCTION_MODULES).map((module) => [module.name, module.cluster]))).toEqual({
      login: 'on-first-use',
      'public-config': 'on-first-use',
      resources: 'at-start',
      internal: 'on-first-use',
      'run-logs': 'on-first-use',
    });
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
