// Stryker ignorer of the `routes` scope: in the route table only the access rules are under test (method, path,
// target, auth). Summaries, schemas and documented error texts feed the OpenAPI document, whose
// own tests cover them; mutating their wording would only produce survivors that prove nothing.
import { PluginKind, declareValuePlugin } from '@stryker-mutator/api/plugin';

/** Route fields that document a route rather than decide who may call it. */
const DOCUMENTATION_PROPERTIES = new Set([
  'summary',
  'description',
  'responseSchema',
  'requestSchema',
  'errorResponses',
  'responseMediaType',
  'successStatus',
]);
/** Constants and helpers of the route groups' files that only build documentation (schemas, error texts, query notes). */
const DOCUMENTATION_NAMES = new Set([
  'SELECTORS',
  'RESOURCE_ERRORS',
  'PATCH_SCHEMA',
  'RUN_SCHEMA',
  'RUN_PAGE_SCHEMA',
  'RUN_PAGE_QUERY',
  'DATABASE_ERRORS',
  'INTERNAL_AUTH',
  'ERROR_SCHEMA',
  'LEASE_SCHEMA',
  'LEASED_RUN_SCHEMA',
  'LEASE_ID',
  'LEASE_SECONDS',
  'LEASE_ERRORS',
  'INVALID_PARAMETER',
  'where',
  'objectSchema',
  'listSchema',
  'defaultErrors',
  'withInvalidParameterAnswer',
]);

const propertyName = (node) => node.key?.name ?? node.key?.value;

/** An object literal of documentation fields only, such as a route's `{ requestSchema, responseSchema }` extras. */
const isDocumentationObject = (node) =>
  node.type === 'ObjectExpression' &&
  node.properties.length > 0 &&
  node.properties.every(
    (property) => property.type === 'ObjectProperty' && DOCUMENTATION_PROPERTIES.has(propertyName(property)),
  );

/** Prose: a string with a space in it. No method, path, target or access mode has one. */
function isProse(path) {
  if (path.isStringLiteral()) return path.node.value.includes(' ');
  if (path.isTemplateLiteral()) return path.node.quasis.some((quasi) => quasi.value.cooked.includes(' '));
  return false;
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'route-documentation', {
    shouldIgnore(path) {
      if (isProse(path)) return 'prose: route documentation, not an access rule';
      if (isDocumentationObject(path.node)) return 'route documentation fields, not an access rule';
      const documentation = path.findParent(
        (parent) =>
          (parent.isObjectProperty() && DOCUMENTATION_PROPERTIES.has(propertyName(parent.node))) ||
          (parent.isVariableDeclarator() && DOCUMENTATION_NAMES.has(parent.node.id.name)) ||
          (parent.isFunctionDeclaration() && DOCUMENTATION_NAMES.has(parent.node.id?.name)),
      );
      return documentation ? 'route documentation, not an access rule' : undefined;
    },
  }),
];
