// Baseline: fastify with @fastify/jwt verifying the admin token (HS256, the same signing key) on
// GET whoami. FASTIFY_REQUEST_LOG=on adds fastify's own pino request log (its default: a line
// when a request comes and one when it is answered). Plain JavaScript, as the bundles are: no
// type stripping at start.
import Fastify from 'fastify';
import fastifyJwt from '@fastify/jwt';

const app = Fastify({ logger: process.env.FASTIFY_REQUEST_LOG === 'on' });
await app.register(fastifyJwt, { secret: process.env.ADMIN_ACCOUNT_TOKEN_SIGNING_KEY });
app.get('/healthz', async () => ({ status: 'ok' }));
app.get('/api/v1alpha1/auth/whoami', async (request) => {
  const claims = await request.jwtVerify();
  return { type: 'admin', name: claims.sub };
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
