// Issues 10 and 25: authenticated GET whoami through the container entry (the resources bundle) with the
// request log on (the default) and off, beside bare node:http and fastify + @fastify/jwt with
// its pino request log, all running at once and measured in the same run.
import { BARE_NODE_HTTP, FASTIFY_JWT, WHOAMI, bundleSetup, ratioRow, throughputs } from './bundle-setup.ts';
import type { Benchmark } from './bench-row.ts';

export const requestLogBenchmark: Benchmark = async () => {
  const setup = await bundleSetup();
  const auth = { authorization: `Bearer ${setup.token}` };
  const resources = { script: setup.bundleEntry, readyPath: '/healthz', path: WHOAMI, headers: auth };
  const [bare, fastifyLogged, logged, quiet] = await throughputs([
    { name: 'bare node:http', script: BARE_NODE_HTTP, env: {}, readyPath: '/', path: WHOAMI, headers: {} },
    {
      name: 'fastify + @fastify/jwt, pino request log',
      script: FASTIFY_JWT,
      env: { ...setup.env, FASTIFY_REQUEST_LOG: 'on' },
      readyPath: '/healthz',
      path: WHOAMI,
      headers: auth,
    },
    { name: 'resources, request log on', ...resources, env: { ...setup.env, FUNCTION_TARGET: 'resources' } },
    {
      name: 'resources, LOG_LEVEL=warn',
      ...resources,
      env: { ...setup.env, FUNCTION_TARGET: 'resources', LOG_LEVEL: 'warn' },
    },
  ]);
  const name = 'authenticated GET whoami, resources bundle (container entry)';
  return [
    ratioRow(
      `${name}, request log on (default)`,
      logged!,
      'req/s',
      'bare node:http',
      bare!,
      '>= 0.65',
      (ratio) => ratio >= 0.65,
    ),
    ratioRow(
      `${name}, request log on (default)`,
      logged!,
      'req/s',
      'fastify + @fastify/jwt with its pino request log',
      fastifyLogged!,
      '>= 2.2',
      (ratio) => ratio >= 2.2,
    ),
    ratioRow(
      `${name}, request log off (LOG_LEVEL=warn)`,
      quiet!,
      'req/s',
      'bare node:http',
      bare!,
      '>= 0.75',
      (ratio) => ratio >= 0.75,
    ),
  ];
};
