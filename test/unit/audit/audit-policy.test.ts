// Issue 22, item 2, "what is recorded": the policy's groups and levels (AUDIT_POLICY), and which group
// a request falls in. The default records logins, refusals, writes, the controller and streams at
// Metadata, and no reads.
import { describe, expect, it } from 'vitest';
import { auditGroup } from '../../../shared/domain/audit/audit-event-builder.ts';
import {
  DEFAULT_AUDIT_POLICY,
  loadAuditSettings,
  parseAuditPolicy,
} from '../../../shared/base/config/audit-settings.ts';

const request = (overrides: Record<string, unknown> = {}) => ({
  method: 'GET',
  path: '/x',
  query: new URLSearchParams(),
  headers: {},
  remoteAddress: '127.0.0.1',
  ...overrides,
});

describe('issue 22: AUDIT_POLICY', () => {
  it('defaults to Metadata for everything but reads (None)', () => {
    expect(parseAuditPolicy(undefined)).toEqual({
      refusal: 'Metadata',
      login: 'Metadata',
      controller: 'Metadata',
      watch: 'Metadata',
      write: 'Metadata',
      read: 'None',
    });
    expect(loadAuditSettings({})).toEqual({
      policy: DEFAULT_AUDIT_POLICY,
      mode: 'batch',
      retentionMs: 90 * 86_400_000,
      bufferEvents: 10_000,
      stdout: true,
    });
  });

  it('one level sets every group', () => {
    expect(new Set(Object.values(parseAuditPolicy('Request')))).toEqual(new Set(['Request']));
    expect(new Set(Object.values(parseAuditPolicy('None')))).toEqual(new Set(['None']));
  });

  it('group=Level pairs change only the groups they name; *= sets every group first', () => {
    expect(parseAuditPolicy('read=Metadata,watch=None')).toEqual({
      ...DEFAULT_AUDIT_POLICY,
      read: 'Metadata',
      watch: 'None',
    });
    expect(parseAuditPolicy('write=Request, *=None')).toEqual({
      refusal: 'None',
      login: 'None',
      controller: 'None',
      watch: 'None',
      write: 'Request',
      read: 'None',
    });
  });
});

describe('issue 22: which group a request is in (the first that fits)', () => {
  it('refusal first: a 401, 403 or 429 whatever else the request was', () => {
    for (const status of [401, 403, 429]) {
      expect(auditGroup(request({ route: { operationId: 'login', target: 'login' } }), status, false)).toBe('refusal');
    }
    expect(auditGroup(request({ route: { operationId: 'login', target: 'login' } }), 400, false)).toBe('login');
  });

  it('the controller: any route of the internal function', () => {
    expect(auditGroup(request({ route: { operationId: 'claimRun', target: 'internal' } }), 200, false)).toBe(
      'controller',
    );
  });

  it('watch: the watch verb, or any streamed answer (a run-log stream)', () => {
    const watch = request({ authorizationAsked: { verb: 'watch', group: 'g', resource: 'workspaces' } });
    expect(auditGroup(watch, 200, false)).toBe('watch');
    expect(auditGroup(request(), 200, true)).toBe('watch');
  });

  it('write: create, update, patch, delete, deletecollection; read: everything else', () => {
    for (const verb of ['create', 'update', 'patch', 'delete', 'deletecollection']) {
      expect(auditGroup(request({ authorizationAsked: { verb, group: 'g', resource: 'r' } }), 200, false)).toBe(
        'write',
      );
    }
    for (const verb of ['get', 'list']) {
      expect(auditGroup(request({ authorizationAsked: { verb, group: 'g', resource: 'r' } }), 200, false)).toBe('read');
    }
    expect(auditGroup(request({ method: 'POST' }), 200, false)).toBe('read');
  });
});
