// Issue 47, item 3: delivery goes on when functions scale to zero: the chart's CronJob calls the internal
// function's POST /internal/outbound/sweep with a ServiceAccount allowed that path alone; the operator's
// allowed ranges reach the functions as OUTBOUND_ALLOWED_CIDRS. Rendered by the real helm.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadOutboundSettings } from '../../../shared/base/config/outbound-settings.ts';
import { routeTable } from '../../../shared/contract/routes/route-table.ts';
import { findObject, helmTemplate, type KubeObject } from '../../support/helm.ts';
import { schemaProblems } from '../../support/kubernetes-schemas.ts';

interface SweepJob {
  schedule: string;
  concurrencyPolicy: string;
  jobTemplate: {
    spec: {
      template: {
        spec: {
          serviceAccountName: string;
          containers: Array<{ image: string; command: string[]; env: Array<{ name: string; value: string }> }>;
        };
      };
    };
  };
}

let defaults: KubeObject[];
let tuned: KubeObject[];
let off: KubeObject[];
beforeAll(async () => {
  [defaults, tuned, off] = await Promise.all([
    helmTemplate({}),
    helmTemplate({ outbound: { sweep: { schedule: '*/5 * * * *' }, allowedCidrs: ['10.20.0.0/16', 'fd00::/8'] } }),
    helmTemplate({ outbound: { sweep: { enabled: false } } }),
  ]);
});

const knativeServices = (objects: KubeObject[]) =>
  objects.filter((object) => object.kind === 'Service' && object.apiVersion === 'serving.knative.dev/v1');

describe('Issue 47, item 3: a scheduled trigger of the platform sweeps the outbox while functions are scaled to zero', () => {
  it("the CronJob posts to the internal function's cluster-local address, on the route the route table gives the internal function", () => {
    const job = findObject(defaults, 'CronJob', 'platform-outbound-sweep').spec as unknown as SweepJob;
    expect(job.schedule).toBe('* * * * *');
    expect(job.concurrencyPolicy).toBe('Forbid');
    const pod = job.jobTemplate.spec.template.spec;
    expect(pod.serviceAccountName).toBe('platform-outbound-sweep');
    const url = new URL(pod.containers[0]!.env.find((variable) => variable.name === 'SWEEP_URL')!.value);
    const internal = findObject(defaults, 'Service', 'platform-internal');
    expect(internal.apiVersion).toBe('serving.knative.dev/v1');
    expect(url.host).toBe(`${internal.metadata.name}.${internal.metadata.namespace ?? 'default'}.svc.cluster.local`);
    const route = routeTable('platform.dev').find((candidate) => candidate.path === url.pathname)!;
    expect(route).toMatchObject({ method: 'POST', target: 'internal', operationId: 'sweepOutbound' });
    expect(pod.containers[0]!.command.join(' ')).toMatch(/method: 'POST'.*authorization: `Bearer \$\{token\}`/s);
    // The platform's own image, as the functions run.
    expect(pod.containers[0]!.image).toBe(
      (knativeServices(defaults)[0]!.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec
        .containers[0]!.image,
    );
  });

  it('its ServiceAccount may POST that one path and nothing else', () => {
    const role = findObject(defaults, 'ClusterRole', 'platform-outbound-sweep') as KubeObject & { rules: unknown };
    expect(role.rules).toEqual([{ nonResourceURLs: ['/internal/outbound/sweep'], verbs: ['post'] }]);
    const binding = findObject(defaults, 'ClusterRoleBinding', 'platform-outbound-sweep') as KubeObject & {
      subjects: unknown;
      roleRef: unknown;
    };
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'platform-outbound-sweep', namespace: expect.any(String) },
    ]);
    expect(binding.roleRef).toMatchObject({ kind: 'ClusterRole', name: 'platform-outbound-sweep' });
  });

  it('outbound.sweep.schedule sets the schedule; outbound.sweep.enabled=false renders none of it', () => {
    expect((findObject(tuned, 'CronJob', 'platform-outbound-sweep').spec as unknown as SweepJob).schedule).toBe(
      '*/5 * * * *',
    );
    expect(off.filter((object) => object.metadata.name === 'platform-outbound-sweep')).toEqual([]);
  });

  it('outbound.allowedCidrs reaches every function as OUTBOUND_ALLOWED_CIDRS, in a form the server parses; none by default', async () => {
    for (const service of knativeServices(tuned)) {
      const env = (service.spec as { template: { spec: { containers: { env: { name: string; value: string }[] }[] } } })
        .template.spec.containers[0]!.env;
      const value = env.find((variable) => variable.name === 'OUTBOUND_ALLOWED_CIDRS')?.value;
      expect(loadOutboundSettings({ OUTBOUND_ALLOWED_CIDRS: value }).allowedCidrs).toEqual([
        '10.20.0.0/16',
        'fd00::/8',
      ]);
    }
    for (const service of knativeServices(defaults))
      expect(JSON.stringify(service)).not.toContain('OUTBOUND_ALLOWED_CIDRS');
    expect(await schemaProblems([...defaults, ...tuned])).toEqual([]);
  });
});
