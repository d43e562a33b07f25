import {
  KUBERNETES_CAUSE_TYPES,
  KUBERNETES_STATUS_REASONS,
  LOGIN_ERRORS,
  PLATFORM_ERRORS,
  STREAM_END_REASONS,
  type ErrorEntry,
} from '../../shared/base/http/error-catalogue.ts';
import { CALLER_FAILURES } from '../../shared/domain/resources/kubernetes-status.ts';

// A meaning may hold `|` only inside code; escaped, it cannot end a table cell.
const cell = (text: string) => text.replaceAll('|', '\\|');

function answerTable(section: Readonly<Record<string, ErrorEntry>>): string[] {
  const rows = Object.entries(section)
    .sort(([a, x], [b, y]) => x.status - y.status || a.localeCompare(b))
    .map(([reason, { status, meaning }]) => `| ${status} | \`${reason}\` | ${cell(meaning)} |`);
  return ['| Status | Reason | Meaning |', '|---|---|---|', ...rows];
}

/** The contents of `docs/errors.md`, rendered from the catalogue (`npm run docs:errors`). */
export function errorDocs(): string {
  const lines = [
    '# Errors',
    '',
    '<!-- Generated from shared/base/http/error-catalogue.ts by `npm run docs:errors`; edit the catalogue, not this file. -->',
    '',
    'Every refusal names a stable `reason` a client can branch on, and a message for people. Plain routes',
    'answer `{"error": "<message>", "reason": "<reason>"}`; resource routes answer a Kubernetes `Status`',
    '(`kind`, `status: "Failure"`, `message`, `reason`, `code`, `details`) that also carries `error`.',
    'Every 401 carries `WWW-Authenticate: Bearer realm="platform-api"`; every 503 and 429 carries',
    '`Retry-After`. A 500 is a bug: it has no detail, and the server logs it.',
    '',
    '## Platform reasons',
    '',
    "The platform's own reasons, on any route (resource routes answer them inside a `Status`).",
    '',
    ...answerTable(PLATFORM_ERRORS),
    '',
    '## Login',
    '',
    '`POST /api/v1alpha1/auth/login` reads a password, not a token: a malformed header is the request to',
    'fix (400), and a refused login is 403 whatever the cause, told apart by `reason`.',
    '',
    ...answerTable(LOGIN_ERRORS),
    '',
    '## Kubernetes Status reasons',
    '',
    "Kubernetes' own `StatusReason` vocabulary, as resource routes answer it (the generic ones also",
    'appear as `{"error", "reason"}` on other routes). The cluster\'s own refusals of the caller',
    `(${[...CALLER_FAILURES].join(', ')}) reach the client as the cluster worded them.`,
    '',
    ...answerTable(KUBERNETES_STATUS_REASONS),
    '',
    'A `Status` with reason `Invalid` lists each bad field in `details.causes`, whose `reason` is:',
    '',
    '| Cause | Meaning |',
    '|---|---|',
    ...Object.entries(KUBERNETES_CAUSE_TYPES).map(([cause, { meaning }]) => `| \`${cause}\` | ${cell(meaning)} |`),
    '',
    '## Run-log stream endings',
    '',
    'A run-log stream (`GET /api/v1alpha1/run-logs/{project}/{run}`, Server-Sent Events) that the server',
    'ends early sends one last event with a `reason`; docs/resources.md describes the events.',
    '',
    '| Event | Reason | Meaning |',
    '|---|---|---|',
    ...Object.entries(STREAM_END_REASONS).map(
      ([reason, { event, meaning }]) => `| \`${event}\` | \`${reason}\` | ${cell(meaning)} |`,
    ),
    '',
  ];
  return lines.join('\n');
}
