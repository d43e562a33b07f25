// Run by test/system/foundation/response-shape.test.ts as its own process (`--expose-gc --allow-natives-syntax`):
// a server made by createLimitedHttpServer answers six requests, a full garbage collection runs
// while their responses are gone, then ten more; prints whether each later response had V8's fast
// properties (not a dictionary) when it reached the listener.
import { request } from 'node:http';
import { createLimitedHttpServer, listen } from '../../knative/node-http/limited-http-server.ts';

const hasFastProperties = new Function('object', 'return %HasFastProperties(object)') as (object: object) => boolean;
const fast: boolean[] = [];
const server = createLimitedHttpServer({ maxHeaderBytes: 16_384 }, (_req, res) => {
  fast.push(hasFastProperties(res));
  res.end('ok');
});
const port = await listen(server, 0, '127.0.0.1');
const get = () =>
  new Promise<void>((resolve, reject) => {
    // A connection each, as probes come: nothing of one request stays alive in the next.
    request({ port, host: '127.0.0.1', agent: false }, (answer) => answer.resume().on('end', resolve))
      .on('error', reject)
      .end();
  });
for (let index = 0; index < 6; index++) await get();
(globalThis as { gc?: () => void }).gc?.();
fast.length = 0;
for (let index = 0; index < 10; index++) await get();
server.close();
process.stdout.write(`${JSON.stringify(fast)}\n`);
