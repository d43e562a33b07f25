// Issue 9, item 4: "one catalogue of errors (reason, status, meaning), used by the code and
// rendered in the docs".
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorDocs } from '../../../infra/tools/error-docs.ts';
import type { ApiError } from '../../../shared/base/http/api-error.ts';
import {
  KUBERNETES_CAUSE_TYPES,
  KUBERNETES_STATUS_REASONS,
  LOGIN_ERRORS,
  PLATFORM_ERRORS,
  STREAM_END_REASONS,
  apiError,
  loginError,
} from '../../../shared/base/http/error-catalogue.ts';
import { CALLER_FAILURES } from '../../../shared/domain/resources/kubernetes-status.ts';
import { errorAnswer } from '../../../shared/contract/routes/error-dress.ts';
import type { RouteDefinition } from '../../../shared/contract/routes/route-definition.ts';
import { routeTable } from '../../../shared/contract/routes/route-table.ts';
import { ERROR_REASON_KEYWORD } from '../../../shared/server/runtime/request-validation.ts';
import { REPO_ROOT } from '../../support/function-servers.ts';

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

// The catalogue's keys are bare identifiers, so a quoted reason in it is one its factories answer.
// The gateways of local development (infra/development/gateway/) answer with catalogued reasons too.
const code = ['shared', 'functions', 'knative', 'infra/development']
  .flatMap((folder) => sourceFiles(join(REPO_ROOT, folder)))
  .map((file) => ({ path: relative(REPO_ROOT, file), text: readFileSync(file, 'utf8') }));

// Reasons of errors that never reach a client: a start-up failure, only logged, and the JSON
// parser's own verdict, which both body readers answer as `BadRequest`.
const NOT_ANSWERS = new Set(['MigrationChecksumMismatch', 'MalformedJson']);

// Where code names the reason of an answer: the catalogue's factories, and `reason` fields.
const ANSWER_SITES = [
  { section: 'any', pattern: /\b(?:apiError|statusError)\(\s*'(\w+)'/g },
  { section: 'any', pattern: /\b(?:notFound|unauthorized)\([^;]*?,\s*'(\w+)'\)/g },
  { section: 'any', pattern: /\breason(?:\??:\s*[\w<>]+)?\s*[:=]\s*'(\w+)'/g },
  // A domain error class: `class X extends CatalogueError { constructor() { super('Reason', …) } }`.
  { section: 'any', pattern: /\bsuper\(\s*'(\w+)',/g },
  { section: 'login', pattern: /\bloginError\(\s*'(\w+)'/g },
] as const;

const named = ANSWER_SITES.flatMap(({ section, pattern }) =>
  code.flatMap(({ path, text }) => [...text.matchAll(pattern)].map((match) => ({ section, reason: match[1]!, path }))),
);

const ANY_ROUTE = new Set([
  ...Object.keys(PLATFORM_ERRORS),
  ...Object.keys(KUBERNETES_STATUS_REASONS),
  ...Object.keys(KUBERNETES_CAUSE_TYPES),
  ...Object.keys(STREAM_END_REASONS),
]);

const answer = (error: ApiError, route?: Pick<RouteDefinition, 'statusErrors'>) => {
  const { status, headers, body } = errorAnswer(error, { route: route as RouteDefinition, principal: null });
  return { status, headers, body: JSON.parse(String(body)) as unknown };
};
const KUBERNETES_ROUTE = { statusErrors: true };

describe('every reason the code answers with is in the catalogue (static scan of shared/ and functions/)', () => {
  it('finds the answer sites', () => {
    expect(named.length).toBeGreaterThan(90);
    expect(named.filter(({ section }) => section === 'login').length).toBeGreaterThanOrEqual(
      Object.keys(LOGIN_ERRORS).length,
    );
  });

  it('names no reason the catalogue lacks', () => {
    const missing = named.filter(({ section, reason }) =>
      section === 'login' ? !Object.hasOwn(LOGIN_ERRORS, reason) : !ANY_ROUTE.has(reason) && !NOT_ANSWERS.has(reason),
    );
    expect(missing).toEqual([]);
  });

  it('writes no status at a throw site: the status comes from the catalogue', () => {
    const written = code.flatMap(({ path, text }) =>
      [...text.matchAll(/new (?:ApiError|KubernetesStatusError)\(\s*\d{3}|jsonResponse\(\s*[45]\d\d/g)].map(
        (match) => `${path}: ${match[0]}`,
      ),
    );
    expect(written).toEqual([]);
  });
});

describe('every catalogue entry is used', () => {
  const quoted = (reason: string) => code.some(({ text }) => text.includes(`'${reason}'`));

  it('each platform reason, cause type and stream ending is named in the code', () => {
    const unused = [
      ...Object.keys(PLATFORM_ERRORS),
      ...Object.keys(KUBERNETES_CAUSE_TYPES),
      ...Object.keys(STREAM_END_REASONS),
    ].filter((reason) => !quoted(reason));
    expect(unused).toEqual([]);
  });

  it('each login reason is answered by the login route', () => {
    const answered = new Set(named.filter(({ section }) => section === 'login').map(({ reason }) => reason));
    expect(Object.keys(LOGIN_ERRORS).filter((reason) => !answered.has(reason))).toEqual([]);
  });

  it("each Kubernetes reason is named in the code, or is one of the cluster's refusals passed on to the caller", () => {
    const unused = Object.entries(KUBERNETES_STATUS_REASONS).filter(
      ([reason, { status }]) => !quoted(reason) && !CALLER_FAILURES.has(status),
    );
    expect(unused).toEqual([]);
  });
});

describe("a throw site names only the reason: status and headers come from the reason's catalogue entry", () => {
  it('gives each reason its catalogued status', () => {
    for (const [reason, { status }] of Object.entries(PLATFORM_ERRORS)) {
      expect(apiError(reason as keyof typeof PLATFORM_ERRORS, 'm').status).toBe(status);
    }
    expect(answer(apiError('WorkspaceSuspended', 'suspended'))).toMatchObject({
      status: 409,
      body: { error: 'suspended', reason: 'WorkspaceSuspended' },
    });
  });

  it('answers the same reason by its section: 401 AdminAccountDisabled for a token, 403 at login', () => {
    expect(apiError('AdminAccountDisabled', 'disabled').status).toBe(401);
    expect(loginError('AdminAccountDisabled', 'disabled').status).toBe(403);
    expect(loginError('MalformedAuthorizationHeader', 'bad').status).toBe(400);
  });

  it('every 401 carries the Bearer challenge; every 503 a Retry-After, 5 s unless the site says', () => {
    expect(apiError('InvalidToken', 'expired').headers).toEqual({ 'www-authenticate': 'Bearer realm="platform-api"' });
    expect(apiError('KubernetesUnavailable', 'down').headers).toEqual({ 'retry-after': '5' });
    expect(apiError('DatabaseUnavailable', 'down', { 'retry-after': '30' }).headers).toEqual({ 'retry-after': '30' });
    expect(apiError('InvalidRun', 'bad').headers).toEqual({});
  });

  it('answers a Kubernetes reason as a Status with its catalogued code', () => {
    expect(answer(apiError('Invalid', 'bad', {}, { name: 'x' }), KUBERNETES_ROUTE)).toMatchObject({
      status: 422,
      body: {
        kind: 'Status',
        status: 'Failure',
        reason: 'Invalid',
        code: 422,
        message: 'bad',
        error: 'bad',
        details: { name: 'x' },
      },
    });
    expect(answer(apiError('KubernetesUnavailable', 'down'), KUBERNETES_ROUTE)).toMatchObject({
      status: 503,
      headers: { 'retry-after': '5' },
      body: { code: 503 },
    });
  });

  it('refuses a reason outside the catalogue at compile time (and at run time)', () => {
    // @ts-expect-error: 'NoSuchReason' is not a catalogue key, which `npm run typecheck` proves.
    expect(() => apiError('NoSuchReason', 'm')).toThrow(TypeError);
  });

  it('keeps the platform and Kubernetes sections apart, so no reason has two statuses on one route', () => {
    expect(Object.keys(PLATFORM_ERRORS).filter((reason) => Object.hasOwn(KUBERNETES_STATUS_REASONS, reason))).toEqual(
      [],
    );
  });
});

describe('docs/errors.md is the catalogue rendered (`npm run docs:errors`)', () => {
  it('equals the rendering of the catalogue', () => {
    expect(readFileSync(join(REPO_ROOT, 'docs/errors.md'), 'utf8')).toBe(errorDocs());
  });

  it('lists every reason with its status and meaning', () => {
    const document = errorDocs();
    for (const [reason, { status, meaning }] of Object.entries({ ...PLATFORM_ERRORS, ...KUBERNETES_STATUS_REASONS })) {
      expect(document).toContain(`| ${status} | \`${reason}\` | ${meaning.replaceAll('|', '\\|')} |`);
    }
  });
});

describe('the runtime-neutral core handler imports no node:http module for its errors', () => {
  it('core-handler.ts imports neither the bridge proxy nor an adapter', () => {
    const source = readFileSync(join(REPO_ROOT, 'shared/server/runtime/core-handler.ts'), 'utf8');
    expect(source).not.toMatch(/from '\.\.\/(bridge|adapters)\//);
  });
});

describe("the reasons a route's request schemas name (`x-error-reason`) are 400 reasons of the catalogue", () => {
  const named = (schema: unknown): string[] => {
    if (schema === null || typeof schema !== 'object') return [];
    return Object.entries(schema).flatMap(([key, value]) =>
      key === ERROR_REASON_KEYWORD ? [String(value)] : named(value),
    );
  };
  const reasons = [
    ...new Set(
      routeTable('platform.dev').flatMap((route) => [...named(route.requestSchema), ...named(route.querySchema)]),
    ),
  ];

  it('finds the annotated reasons', () => {
    expect(reasons.length).toBeGreaterThan(3);
  });

  it.each(reasons)('%s is catalogued with status 400', (reason) => {
    expect({ ...PLATFORM_ERRORS, ...KUBERNETES_STATUS_REASONS }[reason as keyof typeof PLATFORM_ERRORS]?.status).toBe(
      400,
    );
  });
});
