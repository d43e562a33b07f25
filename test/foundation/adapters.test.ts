import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import * as functions from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { createAppContext, type AppContext } from '../../shared/app/app-context.ts';
import { createNodeRequestListener } from '../../shared/adapters/node-http.ts';
import { createFunctionsFrameworkHandler } from '../../shared/adapters/functions-framework.ts';
import { createLambdaHandler } from '../../shared/adapters/aws-lambda.ts';
import { createLimitedHttpServer, listen } from '../../shared/server/limited-http-server.ts';
import { createFunctionHandler } from '../../functions/function-registry.ts';
import type { FunctionName } from '../../shared/routes/route-table.ts';
import { ADMIN_PASSWORD, adminEnv } from '../support/admin-fixtures.ts';
import { silentLogger } from '../support/function-servers.ts';

interface Case {
  name: string;
  fn: FunctionName;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Answer {
  status: number;
  contentType: string | undefined;
  wwwAuthenticate: string | undefined;
  setsCookie: boolean;
  body: unknown;
}

type Transport = (request: Case) => Promise<Answer>;

const normalise = (status: number, headers: Record<string, string | undefined>, text: string): Answer => {
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: compare as text
  }
  if (body && typeof body === 'object' && 'idToken' in body) body = { idToken: 'JWT' };
  return { status, contentType: headers['content-type'], wwwAuthenticate: headers['www-authenticate'], setsCookie: Boolean(headers['set-cookie']), body };
};

describe('One core handler per function, thin adapters: the same requests get the same answers everywhere', () => {
  let context: AppContext;
  const servers: Server[] = [];
  const transports: Record<string, Transport> = {};
  let adminToken = '';

  beforeAll(async () => {
    context = await createAppContext({ ...adminEnv(), MAX_REQUEST_BODY_BYTES: '1024' }, { logger: silentLogger });
    const names: FunctionName[] = ['login', 'resources', 'public-config'];
    const nodeUrls = new Map<FunctionName, string>();
    const frameworkUrls = new Map<FunctionName, string>();
    for (const name of names) {
      const core = createFunctionHandler(name, context);
      const nodeServer = createLimitedHttpServer(context.config, createNodeRequestListener(core, context.config));
      nodeUrls.set(name, `http://127.0.0.1:${await listen(nodeServer, 0, '127.0.0.1')}`);
      functions.http(`adapter-test-${name}`, createFunctionsFrameworkHandler(core, context.config));
      const frameworkServer = getTestServer(`adapter-test-${name}`);
      frameworkUrls.set(name, `http://127.0.0.1:${await listen(frameworkServer, 0, '127.0.0.1')}`);
      servers.push(nodeServer, frameworkServer);
    }
    const overHttp = (urls: Map<FunctionName, string>): Transport => async (request) => {
      const response = await fetch(`${urls.get(request.fn)}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
      return normalise(response.status, Object.fromEntries(response.headers), await response.text());
    };
    transports['node:http container'] = overHttp(nodeUrls);
    transports['functions-framework'] = overHttp(frameworkUrls);
    const lambdas = new Map(names.map((name) => [name, createLambdaHandler(createFunctionHandler(name, context), context.config)]));
    transports['AWS Lambda (HTTP API v2)'] = async (request) => {
      const [rawPath, rawQueryString = ''] = request.path.split('?');
      const result = await lambdas.get(request.fn)!({
        version: '2.0',
        rawPath: rawPath!,
        rawQueryString,
        headers: request.headers ?? {},
        body: request.body,
        isBase64Encoded: false,
        requestContext: { http: { method: request.method, sourceIp: '127.0.0.1' } },
      });
      return normalise(result.statusCode, { ...result.headers, 'set-cookie': result.cookies?.join(', ') }, result.body);
    };
    const login = await transports['node:http container']!({ name: '', fn: 'login', method: 'POST', path: '/api/v1alpha1/auth/login', headers: { authorization: `Bearer ${ADMIN_PASSWORD}` } });
    expect(login.status).toBe(200);
    adminToken = (await (await fetch(`${nodeUrls.get('login')}/api/v1alpha1/auth/login`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_PASSWORD}` } })).json() as { idToken: string }).idToken;
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    await context.close();
  });

  const cases = (): Case[] => [
    { name: 'health probe', fn: 'resources', method: 'GET', path: '/healthz' },
    { name: 'readiness probe', fn: 'login', method: 'GET', path: '/readyz' },
    { name: 'public config', fn: 'public-config', method: 'GET', path: '/api/v1alpha1/system/public-config' },
    { name: 'login with the right password', fn: 'login', method: 'POST', path: '/api/v1alpha1/auth/login', headers: { authorization: `Bearer ${ADMIN_PASSWORD}` } },
    { name: 'login with a wrong password', fn: 'login', method: 'POST', path: '/api/v1alpha1/auth/login', headers: { authorization: 'Bearer nope' } },
    { name: 'login without a header', fn: 'login', method: 'POST', path: '/api/v1alpha1/auth/login' },
    { name: 'authenticated GET', fn: 'resources', method: 'GET', path: '/api/v1alpha1/auth/whoami', headers: { authorization: `Bearer ${adminToken}` } },
    { name: 'GET without a token', fn: 'resources', method: 'GET', path: '/apis/platform.dev/v1alpha1/projects' },
    { name: 'access_token outside the run-log stream', fn: 'resources', method: 'GET', path: `/apis/platform.dev/v1alpha1/projects?access_token=${adminToken}` },
    { name: 'unknown route with a token', fn: 'resources', method: 'GET', path: '/nowhere', headers: { authorization: `Bearer ${adminToken}` } },
    { name: 'body over the limit', fn: 'login', method: 'POST', path: '/api/v1alpha1/auth/login', headers: { authorization: 'Bearer x', 'content-type': 'application/octet-stream' }, body: 'x'.repeat(4096) },
  ];

  it('answers every case identically through the container, functions-framework and Lambda adapters', async () => {
    for (const request of cases()) {
      const answers = await Promise.all(Object.entries(transports).map(async ([transport, send]) => [transport, await send(request)] as const));
      const [, reference] = answers[0]!;
      for (const [transport, answer] of answers) expect(answer, `${request.name} via ${transport}`).toEqual(reference);
    }
  });

  it('answers the body-limit case with 413 PayloadTooLarge (the limit is ours, not the runtime\'s)', async () => {
    const request = cases().find((candidate) => candidate.name === 'body over the limit')!;
    for (const send of Object.values(transports)) expect((await send(request)).status).toBe(413);
  });
});
