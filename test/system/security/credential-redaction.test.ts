// Issue 38, item 1: a valid token sent under a near-miss of the query parameter's name
// (`?access_token[]=`, `?access_token+=`, `?access_token%00=`, other spellings of the name) or as a
// path segment got 401, and its full text was written to the audit event's `requestURI` (standard
// output and the audit_events table) and to the request log, because redaction keyed on exact
// names. A credential-shaped value (a JWT: the admin's, an OIDC user's, a ServiceAccount's) is now
// redacted from every logged or audited URI whatever its name or place. Real PostgreSQL, emulator,
// OpenID Provider, the real standard-output sink and a real function process's stdout.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StdoutAuditSink } from '../../../shared/domain/audit/stdout-audit-sink.ts';
import { BatchedLineWriter } from '../../../shared/base/logging/batched-line-writer.ts';
import {
  containsCredential,
  redactPath,
  redactPathAndQuery,
  REDACTED,
} from '../../../shared/base/logging/redaction.ts';
import { API, usePlatform } from '../../support/platform-fixture.ts';
import { adminClaims, adminEnv, signToken } from '../../support/admin-fixtures.ts';
import { capturingLogger, spawnFunctionProcess, type FunctionProcess } from '../../support/function-servers.ts';

/** The ways a token was seen to reach the logs: each a request target with the token in it, none of them a transport the server reads. */
function nearMisses(token: string): string[] {
  const dotted = (separator: string) => token.replaceAll('.', separator);
  return [
    `${API}/projects?access_token[]=${token}`,
    `${API}/projects?access_token+=${token}`,
    `${API}/projects?access_token%00=${token}`,
    `${API}/projects?access_token%20=${token}`,
    `${API}/projects?ACCESS-TOKEN=${token}`,
    `${API}/projects?accessToken=${token}`,
    `${API}/projects?access_token.=${dotted('%2E')}`,
    `${API}/projects?limit=5&q=Bearer%20${token}`,
    `${API}/projects?x=${dotted('%252E')}`,
    `${API}/projects?${token}`,
    `/api/v1alpha1/${token}`,
    `/api/v1alpha1/auth/${dotted('%2e')}/whoami`,
    `${API}/namespaces/${token}/workspaces`,
    `/api/v1alpha1/run-logs/p/${token}`,
  ];
}

/** The part of a JWT that is secret: its signature (the header and claims are readable by anyone holding it). */
const signatureOf = (token: string) => token.split('.')[2]!;

describe('issue 38 item 1: one redaction function finds a credential by its shape', () => {
  const header = Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url');
  const claims = Buffer.from('{"sub":"admin"}').toString('base64url');
  const jwt = `${header}.${claims}.c2lnbmF0dXJlLWJ5dGVz`;

  it('a JWT anywhere in a path segment, a query name or a query value, in any of their encodings', () => {
    for (const target of nearMisses(jwt)) {
      const url = new URL(target, 'http://x');
      const logged = redactPathAndQuery(url.pathname, url.searchParams);
      expect(logged, target).not.toContain('c2lnbmF0dXJlLWJ5dGVz');
      expect(logged, target).toContain(REDACTED);
    }
  });

  it('a JWT whose header has leading white space, or whose parts are glued to other text, or a JWE', () => {
    const spaced = Buffer.from(' {"alg":"RS256"}').toString('base64url');
    expect(containsCredential(`${spaced}.${claims}.sig`)).toBe(true);
    expect(containsCredential(`prefix${header}.${claims}.sig`)).toBe(true);
    expect(containsCredential(`${header}.${claims}.sig;more`)).toBe(true);
    expect(containsCredential(`${header}..iv.ciphertext.tag`)).toBe(true);
  });

  it('keeps what is not a credential: dotted names, versions, page tokens, ordinary paths', () => {
    for (const text of ['platform.dev', 'my.app.example.com', 'v1.2.3', 'a.b.c', 'eyJ.x.y', '1.2.3.4', 'abc']) {
      expect(containsCredential(text), text).toBe(false);
    }
    const query = new URLSearchParams('labelSelector=app.kubernetes.io%2Fname%3Dx&limit=5&continue=MTIz.NDU2.Nzg5');
    expect(redactPathAndQuery(`${API}/namespaces/team-a/workspaces`, query)).toBe(
      `${API}/namespaces/team-a/workspaces?labelSelector=app.kubernetes.io%2Fname%3Dx&limit=5&continue=MTIz.NDU2.Nzg5`,
    );
    expect(redactPath('/openapi/v3/apis/platform.dev/v1alpha1')).toBe('/openapi/v3/apis/platform.dev/v1alpha1');
  });

  it('redacts secret names in any spelling: case, separators and trailing marks ignored', () => {
    for (const name of ['access_token[]', 'Access-Token', 'accessToken', 'access_token\0', 'ID_TOKEN', 'pass.word']) {
      const logged = redactPathAndQuery('/x', new URLSearchParams([[name, 'not-a-jwt']]));
      expect(logged, name).not.toContain('not-a-jwt');
    }
    expect(redactPathAndQuery('/x', new URLSearchParams('tokens_per_page=5'))).toBe('/x?tokens_per_page=5');
  });
});

describe('issue 38 item 1: near-miss tokens are kept out of the request log, standard-output audit events and the audit_events table', () => {
  const logger = capturingLogger();
  const stdout: string[] = [];
  const stdoutLines = new BatchedLineWriter({ write: (chunk: string) => stdout.push(chunk) });
  const platform = usePlatform({}, { logger, auditSinks: [new StdoutAuditSink(stdoutLines)] });

  it('each token form, sent every way above, is 401, works as a bearer token, and is redacted everywhere it is recorded', async () => {
    const { gateway, database, tokens } = platform();
    const auditIds: string[] = [];
    for (const who of ['admin', 'oidcUser', 'serviceAccount'] as const) {
      const token = tokens[who];
      const working = await fetch(`${gateway.url}/api/v1alpha1/auth/whoami`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(working.status, who).toBe(200);
      for (const target of nearMisses(token)) {
        const response = await fetch(`${gateway.url}${target}`);
        expect(response.status, `${who} ${target}`).toBe(401);
        auditIds.push(response.headers.get('audit-id')!);
      }
    }
    const client = new pg.Client({ connectionString: database.connectionString });
    await client.connect();
    let rows: { event: { requestURI: string } }[] = [];
    try {
      await expect
        .poll(
          async () => {
            rows = (await client.query('SELECT event FROM audit_events WHERE audit_id = ANY($1::uuid[])', [auditIds]))
              .rows;
            return rows.length;
          },
          { timeout: 15_000 },
        )
        .toBe(auditIds.length);
    } finally {
      await client.end();
    }
    stdoutLines.flush();
    const stdoutEvents = stdout
      .join('')
      .split('\n')
      .filter((line) => line.includes('"audit.k8s.io/v1"'))
      .map((line) => JSON.parse(line) as { auditID: string; requestURI: string });
    const recordedIds = new Set(stdoutEvents.map((event) => event.auditID));
    expect(auditIds.filter((id) => !recordedIds.has(id))).toEqual([]);
    const requestLines = logger.lines.filter(
      (line) => line.includes('"message":"request"') && line.includes('"status":401'),
    );
    expect(requestLines.length).toBeGreaterThanOrEqual(auditIds.length);
    const everything = [stdout.join(''), logger.lines.join('\n'), JSON.stringify(rows)].join('\n');
    for (const token of Object.values(tokens)) expect(everything).not.toContain(signatureOf(token));
    for (const row of rows) expect(row.event.requestURI).toContain(REDACTED);
  });

  it('answers and refusals that echo a path (404, 405, a 403 on /internal/* and its audit reason) and the metrics name no token', async () => {
    const { gateway, tokens } = platform();
    const token = tokens.oidcUser;
    const answers = [
      await fetch(`${gateway.url}/api/v1alpha1/${token}`, { headers: { authorization: `Bearer ${tokens.admin}` } }),
      await fetch(`${gateway.url}/api/v1alpha1/run-logs/p/${token}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${tokens.admin}` },
      }),
      await fetch(`${gateway.url}/internal/runs/${token}`, {
        headers: { authorization: `Bearer ${tokens.serviceAccount}` },
      }),
      await fetch(`${gateway.url}/internal/${token}`, { headers: { authorization: `Bearer ${tokens.controller}` } }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([404, 405, 403, 404]);
    for (const answer of answers) expect(await answer.text()).not.toContain(signatureOf(token));
    stdoutLines.flush();
    const refusal = stdout
      .join('')
      .split('\n')
      .find((line) => line.includes(answers[2]!.headers.get('audit-id')!));
    expect(refusal).toContain('"authorization.k8s.io/decision":"forbid"');
    expect(refusal).not.toContain(signatureOf(token));
    const metrics = await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${tokens.admin}` } });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).not.toContain(signatureOf(token));
  });
});

describe('issue 38 item 1: a real function process writes no near-miss token to its standard output', () => {
  const API_BASE_URL = 'http://api.redaction.test';
  let child: FunctionProcess | undefined;
  let token = '';

  beforeAll(async () => {
    child = await spawnFunctionProcess({ ...adminEnv({ API_BASE_URL }), FUNCTION_TARGET: 'resources' });
    token = await signToken(adminClaims(API_BASE_URL));
  });
  afterAll(() => child?.stop());

  it('the request log and the audit events on stdout carry [REDACTED] where the token stood', async () => {
    const whoami = await fetch(`${child!.url}/api/v1alpha1/auth/whoami`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(whoami.status).toBe(200);
    for (const target of nearMisses(token)) {
      expect((await fetch(`${child!.url}${target}`)).status, target).toBe(401);
    }
    await child!.stop();
    const output = child!.output();
    const audited = output
      .split('\n')
      .filter((line) => line.includes('"audit.k8s.io/v1"') && line.includes('"code":401'));
    expect(audited.length).toBeGreaterThanOrEqual(nearMisses(token).length);
    expect(output).toContain(REDACTED);
    expect(output).not.toContain(signatureOf(token));
  });
});
