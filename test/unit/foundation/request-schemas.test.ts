import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Principal } from '../../../shared/auth/principal.ts';
import { ApiError } from '../../../shared/base/http/api-error.ts';
import { buildOpenApiDocument } from '../../../shared/contract/openapi/openapi-document.ts';
import { platformKindDescriptions } from '../../../shared/contract/kinds/platform-kind-descriptions.ts';
import { errorAnswer } from '../../../shared/contract/routes/error-dress.ts';
import { routeTable, type DeclaredRoute, type RouteDefinition } from '../../../shared/contract/routes/route-table.ts';
import { Ajv2020 } from 'ajv/dist/2020.js';
import {
  ERROR_REASON_DEFINITION,
  attachRequestInput,
  loadSchemaChecks,
} from '../../../shared/server/runtime/request-validation.ts';
import type { RouteHandlers, RouteRequest } from '../../../shared/server/runtime/typed-handlers.ts';

// The chain loads the checker before it reads a request's input (filters/request-input.ts); so do these tests.
await loadSchemaChecks();
const routes = routeTable('platform.dev');
const route = (operationId: string) => routes.find((candidate) => candidate.operationId === operationId)!;
const LEASE = '0190f4c8-0000-7000-8000-000000000001';

/** The input of a request on `operationId`, as its handler reads it. */
function inputOf(operationId: string, { body = '', query = '' }: { body?: unknown; query?: string }) {
  const request = {
    method: 'POST',
    path: '/',
    // As a client sends a JSON body (the chain reads a body only in a media type its route takes).
    headers: { 'content-type': 'application/json' },
    remoteAddress: '',
    route: route(operationId),
    query: new URLSearchParams(query),
    body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  };
  attachRequestInput(request);
  return request.input;
}

/** The body the error filter answers `error` with on `operationId`'s route, for an authenticated caller. */
function dressedFor(operationId: string, error: ApiError): unknown {
  return JSON.parse(String(errorAnswer(error, { route: route(operationId), principal: null }).body));
}

function refusal(read: () => unknown): ApiError {
  try {
    read();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('the input was accepted');
}

// Per platform route: a valid body, and the reason each field's refusal carries (the suite pins these reasons).
const BODIES: Record<string, { valid: Record<string, unknown>; reasons: Record<string, string> }> = {
  startRun: {
    valid: { type: 'plan' },
    reasons: { type: 'InvalidRun', message: 'InvalidRun', unknownField: 'InvalidRun' },
  },
  applyPlan: {
    valid: {},
    reasons: { message: 'InvalidRun', unknownField: 'InvalidRun' },
  },
  withdrawPlanApproval: {
    valid: {},
    reasons: { approver: 'InvalidRun', unknownField: 'InvalidRun' },
  },
  approveRollout: {
    valid: { stage: 'prod' },
    reasons: { stage: 'BadRequest', unknownField: 'BadRequest' },
  },
  withdrawRolloutApproval: {
    valid: { stage: 'prod' },
    reasons: { stage: 'BadRequest', approver: 'BadRequest', unknownField: 'BadRequest' },
  },
  claimRun: {
    valid: {},
    reasons: {
      project: 'InvalidClaim',
      workspace: 'InvalidClaim',
      leaseSeconds: 'InvalidLease',
      unknownField: 'BadRequest',
    },
  },
  renewRunLease: {
    valid: { leaseId: LEASE },
    reasons: { leaseId: 'InvalidLease', leaseSeconds: 'InvalidLease', unknownField: 'BadRequest' },
  },
  setRunPhase: {
    valid: { leaseId: LEASE, phase: 'Succeeded' },
    reasons: { leaseId: 'InvalidLease', phase: 'InvalidPhase', message: 'InvalidMessage', unknownField: 'BadRequest' },
  },
  overrideRunTasks: {
    valid: { reason: 'change CHG-42 approved' },
    reasons: { reason: 'InvalidOverride', unknownField: 'InvalidOverride' },
  },
  // The callback's document is judged field by field by readTaskCallback (run-task-protocol.ts), naming the field.
  reportTaskResult: { valid: { data: { type: 'task-results' } }, reasons: {} },
  appendRunLogs: {
    valid: { leaseId: LEASE, firstSeq: 1, lines: ['a'] },
    reasons: {
      leaseId: 'InvalidLease',
      firstSeq: 'InvalidLogLines',
      lines: 'InvalidLogLines',
      unknownField: 'BadRequest',
    },
  },
  // The plan's JSON is kept as the controller sent it (issue 48): open to every field `terraform show -json` writes.
  putRunPlanJson: {
    valid: { format_version: '1.2', resource_changes: [], planned_values: {} },
    reasons: { format_version: 'InvalidPlanJson' },
  },
  createProjectToken: {
    valid: { name: 'ci', role: { kind: 'Role', name: 'ci' }, lifetime: '1h' },
    reasons: {
      name: 'InvalidProjectToken',
      description: 'InvalidProjectToken',
      // `role` is an object itself: `{wrong: true}` is refused for its missing `role.kind` (test/tokens).
      lifetime: 'InvalidProjectToken',
      unknownField: 'InvalidProjectToken',
    },
  },
  createSelfSubjectAccessReview: {
    valid: { spec: { resourceAttributes: { verb: 'get', resource: 'workspaces' } } },
    reasons: { apiVersion: 'BadRequest', kind: 'BadRequest', unknownField: 'BadRequest' },
  },
  createSelfSubjectRulesReview: {
    valid: { spec: { namespace: 'team-a' } },
    reasons: { apiVersion: 'BadRequest', kind: 'BadRequest', unknownField: 'BadRequest' },
  },
};
const QUERIES: Record<string, Record<string, string>> = {
  listWorkspaceRuns: { limit: 'InvalidLimit' },
  listProjectRuns: { limit: 'InvalidLimit' },
  listRunsInPhase: { limit: 'InvalidLimit', phase: 'InvalidPhase' },
  listAuditEvents: { limit: 'InvalidLimit', outcome: 'BadRequest' },
  listNotificationDeliveries: { limit: 'InvalidLimit' },
};

describe('Issue 9: every platform route declares its body and query schemas once, and a request they refuse gets a 400 naming the field', () => {
  it('every request schema is valid JSON Schema 2020-12 (the server skips this check to spare its first request)', () => {
    const ajv = new Ajv2020({ strict: true }).addKeyword(ERROR_REASON_DEFINITION);
    for (const candidate of routes) {
      for (const schema of [candidate.requestSchema, candidate.querySchema]) {
        if (schema) expect(ajv.validateSchema(schema), `${candidate.operationId}: ${ajv.errorsText()}`).toBe(true);
      }
    }
    expect(ajv.validateSchema({ type: 'object', properties: { limit: { type: 'integr' } } })).toBe(false);
  });

  it('the routes with a checked body or query are exactly those this test covers', () => {
    expect(
      routes
        .filter((candidate) => candidate.requestSchema && !candidate.bodyJudgedByCluster)
        .map((candidate) => candidate.operationId)
        .sort(),
    ).toEqual(Object.keys(BODIES).sort());
    const platformQueries = routes
      .filter((candidate) => candidate.querySchema && !candidate.statusErrors)
      .map((candidate) => candidate.operationId);
    expect(platformQueries.sort()).toEqual(Object.keys(QUERIES).sort());
  });

  for (const [operationId, { valid, reasons }] of Object.entries(BODIES)) {
    it(`${operationId}: a valid body is read with its defaults; each field of the wrong type is refused by name`, () => {
      expect(inputOf(operationId, { body: valid }).body()).toMatchObject(valid);
      for (const [field, reason] of Object.entries(reasons)) {
        const error = refusal(() => inputOf(operationId, { body: { ...valid, [field]: { wrong: true } } }).body());
        expect([error.status, error.reason], field).toEqual([400, reason]);
        expect(error.message, field).toContain(`"${field}"`);
      }
    });
  }

  it('every platform query is closed: a parameter the route does not read is a 400 naming it, never ignored (issue 20)', () => {
    for (const operationId of Object.keys(QUERIES)) {
      const error = refusal(() => inputOf(operationId, { query: '?limit=5&colour=blue' }).query());
      expect([operationId, error.status, error.message]).toEqual([
        operationId,
        400,
        'query parameter "colour" is not a known field',
      ]);
    }
  });

  it('names the missing field, the field with a value out of range, and the element of a list', () => {
    expect(refusal(() => inputOf('startRun', { body: {} }).body()).message).toBe('body field "type" is required');
    expect(refusal(() => inputOf('startRun', { body: { type: 'destroy' } }).body()).message).toBe(
      'body field "type" must be one of plan, apply',
    );
    expect(
      refusal(() => inputOf('startRun', { body: { type: 'plan', message: 'x'.repeat(4097) } }).body()).message,
    ).toBe('body field "message" must NOT have more than 4096 characters');
    expect(
      refusal(() => inputOf('appendRunLogs', { body: { leaseId: LEASE, firstSeq: 1, lines: ['a', 2] } }).body())
        .message,
    ).toBe('body field "lines[1]" must be string');
    expect(refusal(() => inputOf('renewRunLease', { body: { leaseId: 'not-a-lease' } }).body()).message).toBe(
      'body field "leaseId" must match format "uuid"',
    );
    const claim = refusal(() => inputOf('claimRun', { body: { workspace: 'w' } }).body());
    expect([claim.reason, claim.message]).toEqual([
      'InvalidClaim',
      'body field "project" is required with "workspace"',
    ]);
  });

  it("a NUL in a string and an integer beyond int4 are refused by the schema with the field's reason, in words (issue 20)", () => {
    const nul = refusal(() => inputOf('startRun', { body: { type: 'plan', message: 'a\u0000b' } }).body());
    expect([nul.status, nul.reason, nul.message]).toEqual([
      400,
      'InvalidRun',
      'body field "message" must not contain the NUL character (U+0000)',
    ]);
    const line = refusal(() =>
      inputOf('appendRunLogs', { body: { leaseId: LEASE, firstSeq: 1, lines: ['ok', '\u0000'] } }).body(),
    );
    expect([line.reason, line.message]).toEqual([
      'InvalidLogLines',
      'body field "lines[1]" must not contain the NUL character (U+0000)',
    ]);
    for (const firstSeq of [2 ** 31, 2 ** 53, 1e21]) {
      const range = refusal(() =>
        inputOf('appendRunLogs', { body: { leaseId: LEASE, firstSeq, lines: ['a'] } }).body(),
      );
      expect([range.reason, range.message]).toEqual(['InvalidLogLines', 'body field "firstSeq" must be <= 2147483647']);
    }
    expect(
      inputOf('appendRunLogs', { body: { leaseId: LEASE, firstSeq: 2 ** 31 - 1, lines: ['a'] } }).body(),
    ).toMatchObject({ firstSeq: 2147483647 });
    expect(refusal(() => inputOf('listProjectRuns', { query: 'continue=a%00' }).query()).message).toBe(
      'query parameter "continue" must not contain the NUL character (U+0000)',
    );
    const selector = refusal(() => inputOf('listWorkspaces', { query: 'labelSelector=a%00' }).query());
    expect(dressedFor('listWorkspaces', selector)).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    expect(selector.message).toBe('query parameter "labelSelector" must not contain the NUL character (U+0000)');
  });

  it("a body that is not a JSON object carries the route's reason; an empty body reads as {}", () => {
    expect(refusal(() => inputOf('startRun', { body: '{' }).body()).reason).toBe('InvalidRun');
    expect(refusal(() => inputOf('setRunPhase', { body: '[1]' }).body()).reason).toBe('BadRequest');
    expect(
      refusal(() => inputOf('startRun', { body: `{"type":${'['.repeat(600)}${']'.repeat(600)}}` }).body()).reason,
    ).toBe('JsonNestingTooDeep');
    expect(inputOf('claimRun', {}).body()).toEqual({ leaseSeconds: 60 });
  });

  it('query values are read as their schema types, with defaults, and refused by name', () => {
    expect(inputOf('listRunsInPhase', { query: 'limit=7&continue=abc' }).query()).toMatchObject({
      limit: 7,
      continue: 'abc',
      phase: 'Pending',
    });
    expect(inputOf('listProjectRuns', {}).query()).toEqual({ limit: 50 });
    // The first of a repeated parameter counts; names an object inherits are refused as unknown, not read.
    expect(inputOf('listProjectRuns', { query: 'limit=3&limit=9' }).query()).toEqual({ limit: 3 });
    for (const inherited of ['__proto__', 'constructor', 'toString'])
      expect(refusal(() => inputOf('listProjectRuns', { query: `${inherited}=x&limit=3` }).query()).message).toBe(
        `query parameter "${inherited}" is not a known field`,
      );
    for (const [operationId, reasons] of Object.entries(QUERIES)) {
      for (const [parameter, reason] of Object.entries(reasons)) {
        for (const value of ['0', 'abc', '501', '']) {
          if (parameter === 'phase' && value === '0') continue;
          const error = refusal(() => inputOf(operationId, { query: `${parameter}=${value}` }).query());
          expect(
            [error.status, error.reason, error.message.startsWith(`query parameter "${parameter}" `)],
            `${operationId} ${parameter}=${value}`,
          ).toEqual([400, reason, true]);
        }
      }
    }
    expect(refusal(() => inputOf('listRunsInPhase', { query: 'phase=Succeeded' }).query()).message).toBe(
      'query parameter "phase" must be one of Pending, Running',
    );
  });

  it('a resource list refuses a limit that is not a non-negative integer with a Kubernetes Status; resource bodies are left to the cluster', () => {
    const error = refusal(() => inputOf('listWorkspaces', { query: 'limit=-1' }).query());
    expect(dressedFor('listWorkspaces', error)).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    expect([error.status, error.reason, error.message]).toEqual([
      400,
      'BadRequest',
      'query parameter "limit" must match pattern "^[0-9]+$"',
    ]);
    expect(inputOf('listWorkspaces', { query: 'limit=5&watch=1&labelSelector=a%3Db' }).query()).toEqual({
      limit: '5',
      watch: '1',
      labelSelector: 'a=b',
    });
    expect(inputOf('createWorkspace', { body: '{"anything": [1]}' }).body()).toBeUndefined();
  });

  it('nothing is read or checked until the handler asks, so a caller refused before that learns nothing of the schema', () => {
    // Attaching the input reads neither; each refuses when read (a route that declares no query reads none).
    const input = inputOf('startRun', { body: '{', query: 'limit=x' });
    expect(() => input.query()).toThrow('query parameter "limit" is not a known field');
    expect(() => input.body()).toThrow(ApiError);
  });
});

const kinds = await platformKindDescriptions('platform.dev');

describe('Issue 9: the OpenAPI document takes request bodies and query parameters from the very schemas requests are checked against', () => {
  const document = buildOpenApiDocument(routes, 'http://localhost:8080', kinds, 'platform.dev') as {
    paths: Record<
      string,
      Record<
        string,
        {
          parameters?: { name: string; in: string; schema: unknown; required: boolean }[];
          requestBody?: { required: boolean; content: Record<string, { schema: unknown }> };
        }
      >
    >;
  };
  const operation = (candidate: RouteDefinition) => document.paths[candidate.path]![candidate.method.toLowerCase()]!;

  it.each(
    routes
      .filter((candidate) => candidate.requestSchema && !candidate.bodyJudgedByCluster)
      .map((candidate) => [candidate.operationId, candidate] as const),
  )("%s: its request body schema is the route's", (_, candidate) => {
    expect(operation(candidate).requestBody!.content['application/json']!.schema).toBe(candidate.requestSchema);
  });

  it.each(
    routes.filter((candidate) => candidate.querySchema).map((candidate) => [candidate.operationId, candidate] as const),
  )("%s: each query parameter's schema is the property of the route's query schema", (_, candidate) => {
    const properties = candidate.querySchema!.properties as Record<string, unknown>;
    // The chain's `timeout` (issue 38) follows the route's own, documented on every route that reads it.
    const parameters = operation(candidate).parameters!.filter(
      (parameter) => parameter.in === 'query' && parameter.name !== 'timeout',
    );
    expect(parameters.map((parameter) => parameter.name)).toEqual(Object.keys(properties));
    for (const parameter of parameters) expect(parameter.schema).toBe(properties[parameter.name]);
  });

  it('a body whose fields are all optional is documented as optional (an empty body reads as {})', () => {
    expect(operation(route('claimRun')).requestBody!.required).toBe(false);
    expect(operation(route('applyPlan')).requestBody!.required).toBe(false);
    expect(operation(route('startRun')).requestBody!.required).toBe(true);
  });
});

type Route<Id extends string> = Extract<DeclaredRoute, { operationId: Id }>;

describe('Issue 9: a handler receives the input typed from its route declaration, and a declared route without its handler does not compile', () => {
  it('params come from the path template, the body and query from their schemas, the principal is non-null on authenticated routes', () => {
    expectTypeOf<RouteRequest<Route<'appendRunLogs'>>['params']>().toEqualTypeOf<{ readonly run: string }>();
    expectTypeOf<RouteRequest<Route<'startRun'>>['params']>().toEqualTypeOf<{
      readonly project: string;
      readonly workspace: string;
    }>();
    expectTypeOf<ReturnType<RouteRequest<Route<'startRun'>>['input']['body']>>().toEqualTypeOf<{
      type: 'plan' | 'apply';
      message?: string;
      override?: { reason: string };
    }>();
    expectTypeOf<ReturnType<RouteRequest<Route<'listRunsInPhase'>>['input']['query']>>().toMatchTypeOf<{
      phase: 'Pending' | 'Running';
      limit: number;
      continue?: string;
    }>();
    expectTypeOf<RouteRequest<Route<'cancelRun'>>['principal']>().toEqualTypeOf<Principal>();
    expectTypeOf<RouteRequest<Route<'login'>>['principal']>().toEqualTypeOf<null>();
  });

  it("each function's handlers are keyed by exactly its routes' operationIds (checked by `npm run typecheck`)", () => {
    expectTypeOf<keyof RouteHandlers<'run-logs'>>().toEqualTypeOf<'streamRunLogs'>();
    expectTypeOf<keyof RouteHandlers<'internal'>>().toEqualTypeOf<
      | 'listRunsInPhase'
      | 'claimRun'
      | 'renewRunLease'
      | 'setRunPhase'
      | 'appendRunLogs'
      | 'getRunVariables'
      | 'putRunPlanJson'
      | 'sweepOutbound'
      | 'internal'
    >();
    // @ts-expect-error: the run-logs function without its one handler
    const missing: RouteHandlers<'run-logs'> = {};
    expect(missing).toEqual({});
  });
});
