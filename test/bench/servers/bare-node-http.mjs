// Baseline: the leanest node:http server, answering a small JSON body (plain JavaScript: no type stripping at start).
import { createServer } from 'node:http';

const body = JSON.stringify({ kind: 'ProjectList', items: [] });
createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'));
