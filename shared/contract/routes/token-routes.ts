import { DNS_LABEL } from '../kinds/object-names.ts';
import { DATABASE_ERRORS } from './run-routes.ts';
import { declareRoutes } from './route-definition.ts';

/** The longest lifetime a Project token may be given (a Go duration: one year). */
export const TOKEN_LIFETIME_MAX = '8760h';
/** The shortest: Kubernetes' TokenRequest refuses less than ten minutes. */
export const TOKEN_LIFETIME_MIN = '10m';

/** A Role's or ClusterRole's name: a path segment (ClusterRoles may hold `:`, as `system:aggregate-to-view`). */
const ROLE_NAME = { type: 'string', maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9.:]*[a-z0-9])?$' } as const;

/** What the token list shows of a token: never its value. */
const TOKEN_SCHEMA = {
  type: 'object',
  required: ['name', 'description', 'role', 'creator', 'createdAt', 'expiresAt', 'lastUsedAt', 'lastUsedFrom'],
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    role: { type: 'string', description: '`Role/<name>` or `ClusterRole/<name>`, bound in the Project namespace.' },
    creator: { type: 'string', description: 'Who created it: `admin`, the OIDC username or the ServiceAccount.' },
    createdAt: { type: 'string', format: 'date-time' },
    expiresAt: { type: 'string', format: 'date-time' },
    lastUsedAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'Its last use, recorded at most once a minute; null when never used.',
    },
    lastUsedFrom: { type: ['string', 'null'], description: 'The client address of that use.' },
  },
} as const;

/** `verb` on `tokens` in the Project's namespace (the platform's API group), named by the path's token when `named`. */
const tokensOf = (verb: string, named: boolean) =>
  ({
    attributes: {
      verb,
      group: 'platform',
      resource: 'tokens',
      namespaceParameter: 'project',
      ...(named ? { nameParameter: 'name' } : {}),
    },
  }) as const;

/** The Project token routes (issue 46, docs/tokens.md), served by the resources function. */
export function tokenRoutes() {
  const tokens = '/api/v1alpha1/projects/{project}/tokens';
  return declareRoutes([
    {
      method: 'POST',
      path: tokens,
      target: 'resources',
      auth: 'bearer',
      operationId: 'createProjectToken',
      authorization: tokensOf('create', false),
      summary: `Create a Project token: a bound, expiring ServiceAccount token whose rights are the role's in the Project namespace. The answer carries the token once; it is never shown again. The caller must hold every permission of the role there, or \`bind\` on it. Lifetime: ${TOKEN_LIFETIME_MIN} to ${TOKEN_LIFETIME_MAX}. Authorized as \`create\` on \`tokens\`.`,
      requestSchema: {
        type: 'object',
        required: ['name', 'role', 'lifetime'],
        additionalProperties: false,
        properties: {
          name: {
            ...DNS_LABEL,
            maxLength: 57,
            description: 'A DNS label of at most 57 characters (its ServiceAccount is `token-<name>`).',
          },
          description: { type: 'string', maxLength: 1024 },
          role: {
            type: 'object',
            required: ['kind', 'name'],
            additionalProperties: false,
            properties: { kind: { enum: ['Role', 'ClusterRole'] }, name: ROLE_NAME },
          },
          lifetime: {
            type: 'string',
            maxLength: 32,
            description: `A Go duration (\`720h\`), from ${TOKEN_LIFETIME_MIN} to ${TOKEN_LIFETIME_MAX}.`,
          },
        },
        'x-error-reason': 'InvalidProjectToken',
      },
      responseSchema: {
        ...TOKEN_SCHEMA,
        required: [...TOKEN_SCHEMA.required, 'token'],
        properties: {
          ...TOKEN_SCHEMA.properties,
          token: { type: 'string', description: 'The token: shown this once.' },
        },
      },
      successStatus: 201,
      errorResponses: {
        400: 'A bad name, role or lifetime (`InvalidProjectToken`).',
        403: 'Not allowed to create tokens, or the role grants what the caller, or the API server itself, does not hold (`Forbidden`).',
        404: 'No such role (`TokenRoleNotFound`).',
        409: 'A token of that name exists in the Project (`TokenAlreadyExists`).',
        ...DATABASE_ERRORS,
      },
    },
    {
      method: 'GET',
      path: tokens,
      target: 'resources',
      auth: 'bearer',
      operationId: 'listProjectTokens',
      authorization: tokensOf('list', false),
      summary:
        "List a Project's tokens (revoked ones no more; expired ones until the retention), by name: never their values. Authorized as `list` on `tokens`.",
      responseSchema: {
        type: 'object',
        required: ['items'],
        properties: { items: { type: 'array', items: TOKEN_SCHEMA } },
      },
      errorResponses: { ...DATABASE_ERRORS },
    },
    {
      method: 'DELETE',
      path: `${tokens}/{name}`,
      target: 'resources',
      auth: 'bearer',
      operationId: 'revokeProjectToken',
      authorization: tokensOf('delete', true),
      summary:
        'Revoke a Project token: its ServiceAccount and RoleBinding are deleted and every instance forgets it at once. Authorized as `delete` on `tokens` (name: the token).',
      successStatus: 204,
      errorResponses: { 404: 'No such live token (`TokenNotFound`).', ...DATABASE_ERRORS },
    },
  ]);
}
