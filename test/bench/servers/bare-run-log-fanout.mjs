// Baseline (issue 25): the leanest run-log fan-out node:http and pg allow, for the same bench client
// as the run-logs function. It LISTENs on the channel the `run_log_lines` trigger notifies on,
// formats each notification's lines once and writes them to every open stream of that run. No
// authentication, no catch-up, no heartbeat, no send buffer: only the fan-out itself. Plain
// JavaScript: no type stripping at start.
import { createServer } from 'node:http';
import pg from 'pg';

const streamsByRun = new Map();
const listener = new pg.Client({ connectionString: process.env.DATABASE_URL });
await listener.connect();
listener.on('notification', ({ payload }) => {
  const { runId, firstSeq, lines } = JSON.parse(payload ?? '{}');
  const streams = streamsByRun.get(runId);
  if (!streams || !Array.isArray(lines)) return;
  const events = lines.map((line, index) => `id: ${firstSeq + index}\ndata: ${line}\n\n`).join('');
  for (const response of streams) response.write(events);
});
await listener.query('LISTEN run_log_lines');

createServer((request, response) => {
  if (request.url === '/readyz') return response.end('ready');
  const runId = request.url?.split('/').pop() ?? '';
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
  response.write('retry: 3000\n\n');
  let streams = streamsByRun.get(runId);
  if (!streams) streamsByRun.set(runId, (streams = new Set()));
  streams.add(response);
  response.on('close', () => streams.delete(response));
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'));
