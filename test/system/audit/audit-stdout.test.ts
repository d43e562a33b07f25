// Issue 22, sinks: "JSON lines on standard output (one event a line ...)". A real function process
// (the container entry) writes its audit events to stdout beside its request log; the lines a log
// shipper would pick by their apiVersion are fed to the audit.k8s.io/v1 Event schema, one by one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, adminEnv } from '../../support/admin-fixtures.ts';
import { login, spawnFunctionProcess, type FunctionProcess } from '../../support/function-servers.ts';
import { kubeAuditEventErrors } from '../../support/kube-audit-event-schema.ts';

/** The audit lines of a process's output: JSON objects whose apiVersion is audit.k8s.io/v1. */
function auditLines(output: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"apiVersion":"audit.k8s.io/v1"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('issue 22: the standard-output sink of a real function process', () => {
  let child: FunctionProcess;
  let output = '';
  const answers: { status: number; auditId: string | null }[] = [];

  beforeAll(async () => {
    child = await spawnFunctionProcess({ ...adminEnv(), FUNCTION_TARGET: 'login' });
    for (const password of [ADMIN_PASSWORD, 'wrong password', ADMIN_PASSWORD]) {
      const response = await login(child.url, password);
      answers.push({ status: response.status, auditId: response.headers.get('audit-id') });
    }
    await child.stop();
    output = child.output();
  });
  afterAll(() => child?.stop());

  it('writes one line per login attempt, each found by the Audit-Id its answer carried', () => {
    const lines = auditLines(output);
    for (const answer of answers) {
      expect(lines.filter((line) => line.auditID === answer.auditId)).toHaveLength(1);
    }
    expect(answers.map((answer) => answer.status)).toEqual([200, 403, 200]);
  });

  it('every audit line is a valid audit.k8s.io/v1 Event', () => {
    const lines = auditLines(output);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) expect(kubeAuditEventErrors(line), JSON.stringify(line)).toEqual([]);
  });

  it('no line of the output holds the password or a token the process issued', () => {
    expect(output).not.toContain(ADMIN_PASSWORD);
    expect(output).not.toMatch(/eyJ[\w-]+\.eyJ[\w-]+\./);
  });

  it('AUDIT_STDOUT=false keeps the events off standard output', async () => {
    const quiet = await spawnFunctionProcess({ ...adminEnv(), FUNCTION_TARGET: 'login', AUDIT_STDOUT: 'false' });
    expect((await login(quiet.url, ADMIN_PASSWORD)).status).toBe(200);
    await quiet.stop();
    expect(auditLines(quiet.output())).toEqual([]);
    expect(quiet.output()).toContain('admin login succeeded');
  });
});
