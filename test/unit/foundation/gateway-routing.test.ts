// Issue 20, item 6 (and the gateway mutation scope): how the gateway's path rules are derived from
// routes and applied, on small hand-made tables: Gateway API HTTPRoute semantics (Exact first, then the
// longest PathPrefix matching whole path elements), the query never part of the match.
import { describe, expect, it } from 'vitest';
import {
  gatewayRules,
  resolveGatewayTarget,
  type GatewayRule,
} from '../../../shared/contract/routes/gateway-routing.ts';
import type { RouteDefinition } from '../../../shared/contract/routes/route-definition.ts';

const route = (path: string, target: RouteDefinition['target'], method = 'GET'): RouteDefinition => ({
  method,
  path,
  target,
  auth: 'none',
  operationId: `${method} ${path}`,
  summary: '',
});

describe('issue 20: gateway rules derived from the routes', () => {
  it('an Exact rule for a path without parameters, a PathPrefix of the literal part otherwise (`/` when there is none), probes to public-config', () => {
    expect(
      gatewayRules([
        route('/api/v1alpha1/auth/login', 'login', 'POST'),
        route('/internal/runs/{run}/lease', 'internal', 'POST'),
        route('/{anything}', 'resources'),
        route('/healthz', 'every-function'),
      ]),
    ).toEqual([
      { type: 'Exact', value: '/api/v1alpha1/auth/login', target: 'login' },
      { type: 'PathPrefix', value: '/internal/runs', target: 'internal' },
      { type: 'PathPrefix', value: '/', target: 'resources' },
      { type: 'Exact', value: '/healthz', target: 'public-config' },
    ]);
  });

  it('adds the fallback `/` to the resources function when no route claims it; one rule per path however many methods', () => {
    expect(gatewayRules([route('/x', 'login', 'GET'), route('/x', 'login', 'POST')])).toEqual([
      { type: 'Exact', value: '/x', target: 'login' },
      { type: 'PathPrefix', value: '/', target: 'resources' },
    ]);
  });

  it('refuses a table that gives one rule two targets, naming the rule and both', () => {
    expect(() => gatewayRules([route('/x', 'login'), route('/x', 'internal', 'POST')])).toThrow(
      'route table is ambiguous at the gateway: Exact /x claimed by login and internal',
    );
  });
});

describe('issue 20: a request target resolved as an HTTPRoute resolves it', () => {
  const rules: GatewayRule[] = [
    { type: 'PathPrefix', value: '/', target: 'resources' },
    { type: 'PathPrefix', value: '/a/', target: 'login' },
    { type: 'PathPrefix', value: '/a/b', target: 'internal' },
    { type: 'Exact', value: '/a/b/exact', target: 'public-config' },
    { type: 'PathPrefix', value: '/c', target: 'run-logs' },
  ];

  it('Exact wins over any prefix, and matches its path alone: what lies below it goes by prefix', () => {
    expect(resolveGatewayTarget(rules, '/a/b/exact')).toBe('public-config');
    expect(resolveGatewayTarget(rules, '/a/b/exact/more')).toBe('internal');
  });

  it('the longest matching prefix wins, whatever the order of the rules', () => {
    expect(resolveGatewayTarget(rules, '/a/b/c')).toBe('internal');
    expect(resolveGatewayTarget([...rules].reverse(), '/a/b/c')).toBe('internal');
    expect(resolveGatewayTarget(rules, '/a/x')).toBe('login');
    expect(resolveGatewayTarget(rules, '/z')).toBe('resources');
  });

  it('a prefix matches whole path elements: `/c` takes `/c` and `/c/d`, not `/cd`; `/a/` takes `/a`', () => {
    expect(resolveGatewayTarget(rules, '/c')).toBe('run-logs');
    expect(resolveGatewayTarget(rules, '/c/d')).toBe('run-logs');
    expect(resolveGatewayTarget(rules, '/cd')).toBe('resources');
    expect(resolveGatewayTarget(rules, '/a')).toBe('login');
    expect(resolveGatewayTarget(rules, '/a/bc')).toBe('login');
  });

  it('the query is never part of the match', () => {
    expect(resolveGatewayTarget(rules, '/a/b/exact?x=1')).toBe('public-config');
    expect(resolveGatewayTarget(rules, '/cd?/c')).toBe('resources');
  });

  it('of two Exact rules for one path the first wins, as the first match does', () => {
    const duplicated: GatewayRule[] = [
      { type: 'Exact', value: '/x', target: 'login' },
      { type: 'Exact', value: '/x', target: 'internal' },
    ];
    expect(resolveGatewayTarget(duplicated, '/x')).toBe('login');
  });

  it('a `/` prefix takes every path, whatever function it names', () => {
    const catchAll: GatewayRule[] = [{ type: 'PathPrefix', value: '/', target: 'login' }];
    expect(resolveGatewayTarget(catchAll, '/anything/below')).toBe('login');
    expect(resolveGatewayTarget(catchAll, '/')).toBe('login');
  });

  it('with no rule that matches, the fallback function', () => {
    expect(resolveGatewayTarget([{ type: 'PathPrefix', value: '/only', target: 'login' }], '/other')).toBe('resources');
    expect(resolveGatewayTarget([], '/')).toBe('resources');
  });
});
