// Baseline: a bare functions-framework HTTP function served by the framework's own server.
import * as functions from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';

functions.http('hello', (_req, res) => {
  res.json({ kind: 'ProjectList', items: [] });
});
getTestServer('hello').listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'));
