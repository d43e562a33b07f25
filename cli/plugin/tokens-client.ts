// The Project token routes (docs/tokens.md) as the `tokens` commands call them, and a token as a table row.
import { humanAge, humanDuration } from './human-duration.ts';
import { type OutputFormat, printObject } from './printed-objects.ts';
import { formatTable } from './table.ts';
import { usageError } from './command-line.ts';
import type { ProjectTokenRecord } from '../../shared/contract/rules/project-token-record.ts';

/** A token as the list shows it: never its value (the contract's one type, which the console reads too). */
export type TokenRecord = ProjectTokenRecord;

export const tokensPath = (project: string) => `/api/v1alpha1/projects/${encodeURIComponent(project)}/tokens`;
export const tokenPath = (project: string, name: string) => `${tokensPath(project)}/${encodeURIComponent(name)}`;

/** `--role ci` (a Role in the Project's namespace), `--role Role/ci` or `--role ClusterRole/view`. */
export function parseRole(text: string): { kind: 'Role' | 'ClusterRole'; name: string } {
  const [kind, name] = text.includes('/') ? text.split('/', 2) : ['Role', text];
  if ((kind !== 'Role' && kind !== 'ClusterRole') || !name)
    throw usageError(`--role must be NAME, Role/NAME or ClusterRole/NAME, not ${JSON.stringify(text)}`);
  return { kind, name };
}

const HEADERS = ['NAME', 'ROLE', 'CREATOR', 'AGE', 'EXPIRES', 'LAST USED'];
const WIDE_HEADERS = [...HEADERS, 'FROM', 'DESCRIPTION'];

/** Time until `at` (`in 29d`), or `expired`. */
function expiresIn(at: string, now: number): string {
  const left = Date.parse(at) - now;
  return left <= 0 ? 'expired' : `in ${humanDuration(left)}`;
}

/** Tokens in the -o format: a kubectl table, JSON or YAML, or `token/<name>` names. */
export function formatTokens(tokens: readonly TokenRecord[], format: OutputFormat, now = Date.now()): string {
  if (format === 'json' || format === 'yaml') return printObject({ items: tokens }, format);
  if (format === 'name') return tokens.map((token) => `token/${token.name}\n`).join('');
  const wide = format === 'wide';
  const rows = tokens.map((token) => {
    const row = [
      token.name,
      token.role,
      token.creator,
      humanAge(token.createdAt, now),
      expiresIn(token.expiresAt, now),
      token.lastUsedAt ? `${humanAge(token.lastUsedAt, now)} ago` : '<never>',
    ];
    return wide ? [...row, token.lastUsedFrom ?? '<none>', token.description || '<none>'] : row;
  });
  return formatTable(wide ? WIDE_HEADERS : HEADERS, rows);
}
