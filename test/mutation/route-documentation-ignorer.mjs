// Stryker ignorer: in the route table only the access rules are under test (method, path,
// target, auth). Summaries, schemas and documented error texts feed the OpenAPI document, whose
// own tests cover them; mutating their wording would only produce survivors that prove nothing.
import { PluginKind, declareValuePlugin } from '@stryker-mutator/api/plugin';

const DOCUMENTATION_PROPERTIES = new Set(['summary', 'description', 'responseSchema', 'requestSchema', 'errorResponses', 'responseMediaType', 'successStatus']);

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'route-documentation', {
    shouldIgnore(path) {
      const documentation = path.findParent((parent) => parent.isObjectProperty() && DOCUMENTATION_PROPERTIES.has(parent.node.key.name ?? parent.node.key.value));
      return documentation ? 'route documentation, not an access rule' : undefined;
    },
  }),
];
