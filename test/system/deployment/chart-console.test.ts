// Issue 24, item 1: the chart's console — a second Knative Service of the same image
// (FUNCTION_TARGET=console) on its own host through the Gateway, off by default, and when on, the
// API functions' CORS_ALLOWED_ORIGINS set to its origin. Rendered by the real helm.
import { beforeAll, describe, expect, it } from 'vitest';
import { findObject, helmTemplate, type KubeObject } from '../../support/helm.ts';
import { schemaProblems } from '../../support/kubernetes-schemas.ts';

type Env = Array<{ name: string; value?: string }>;
const containerOf = (service: KubeObject) =>
  (service.spec as { template: { spec: { containers: Array<{ env: Env; image: string }> } } }).template.spec
    .containers[0]!;
const envOf = (service: KubeObject, name: string) =>
  containerOf(service).env.find((entry) => entry.name === name)?.value;
const knativeServices = (objects: KubeObject[]) =>
  objects.filter((object) => object.kind === 'Service' && object.apiVersion === 'serving.knative.dev/v1');

const ENABLED = {
  api: {
    baseUrl: 'https://platform.example.io',
    oidc: { issuerUrl: 'https://id.example.io/realms/platform', clientId: 'web', cliClientId: 'cli' },
  },
  gateway: { hostnames: ['platform.example.io'] },
  console: { enabled: true, host: 'console.example.io' },
};

let off: KubeObject[];
let on: KubeObject[];
beforeAll(async () => {
  [off, on] = await Promise.all([helmTemplate({}), helmTemplate(ENABLED)]);
});

describe('The console in the chart', () => {
  it('is off by default: no console Service, no HTTPRoute for it, no CORS setting on the API', () => {
    expect(knativeServices(off).map((service) => service.metadata.name)).not.toContain('platform-console');
    expect(off.filter((object) => object.kind === 'HTTPRoute').map((route) => route.metadata.name)).toEqual([
      'platform',
    ]);
    for (const service of knativeServices(off)) expect(envOf(service, 'CORS_ALLOWED_ORIGINS')).toBeUndefined();
  });

  it('on: the same image as FUNCTION_TARGET=console, told the API origin and the OpenID Provider origin', () => {
    const consoleService = findObject(on, 'Service', 'platform-console');
    const api = findObject(on, 'Service', 'platform-resources');
    expect(containerOf(consoleService).image).toBe(containerOf(api).image);
    expect(envOf(consoleService, 'FUNCTION_TARGET')).toBe('console');
    expect(envOf(consoleService, 'CONSOLE_API_BASE_URL')).toBe('https://platform.example.io');
    expect(envOf(consoleService, 'CONSOLE_CONNECT_ORIGINS')).toBe('https://id.example.io');
    // A static server: none of the API's secrets or settings.
    expect(envOf(consoleService, 'ADMIN_SECRET_SOURCE')).toBeUndefined();
  });

  it("on: its own host through the Gateway, and every API function allows the console's origin", () => {
    const route = findObject(on, 'HTTPRoute', 'platform-console') as KubeObject & {
      spec: { hostnames: string[]; rules: Array<{ filters: Array<{ urlRewrite: { hostname: string } }> }> };
    };
    expect(route.spec.hostnames).toEqual(['console.example.io']);
    expect(route.spec.rules[0]!.filters[0]!.urlRewrite.hostname).toBe(
      'platform-console.platform-system.svc.cluster.local',
    );
    const functions = knativeServices(on).filter((service) => service.metadata.name !== 'platform-console');
    expect(functions.length).toBeGreaterThan(0);
    for (const service of functions) expect(envOf(service, 'CORS_ALLOWED_ORIGINS')).toBe('https://console.example.io');
  });

  it('renders objects the Kubernetes schemas accept', async () => {
    expect(await schemaProblems(on)).toEqual([]);
  });

  it('refuses to render without a host, and refuses a host with a scheme or path', async () => {
    await expect(helmTemplate({ console: { enabled: true } })).rejects.toThrow(/console.host is required/);
    await expect(helmTemplate({ console: { enabled: true, host: 'https://console.example.io' } })).rejects.toThrow(
      /host/,
    );
    await expect(helmTemplate({ console: { enabeld: true } })).rejects.toThrow(/enabeld/);
  });
});
