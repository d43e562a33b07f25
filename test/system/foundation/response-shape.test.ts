// A server's responses keep V8's fast properties whatever the garbage collector does between the
// first requests (knative/node-http/response-shape.ts): a full collection while the first responses are
// gone used to make every later ServerResponse a dictionary, about 3 KB more per open run-log stream.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/function-servers.ts';

describe('issue 25, item 3 (memory per stream): node:http responses stay fast objects after an early full GC', () => {
  it('the ten responses after six answered ones and a full GC (V8 sizes by the first seven) all have fast properties', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--expose-gc', '--allow-natives-syntax', 'test/support/response-shape-probe.ts'],
      { cwd: REPO_ROOT },
    );
    expect(JSON.parse(stdout)).toEqual(Array.from({ length: 10 }, () => true));
  });
});
