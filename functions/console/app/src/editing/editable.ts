// What an editor changes of an object, and how the YAML view's text becomes a draft again (issue 40,
// item 1): `metadata` (name, labels, annotations) and `spec`, never `status`, which the server writes.
import type { KindInfo } from '../kinds.ts';
import type { KubeObject } from '../platform-api.ts';
import { isJsonObject, type JsonObject } from './json-values.ts';

/** What the editor changes of an object: its name, labels and annotations, and its spec (never its status). */
export interface Editable {
  metadata: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: JsonObject;
}

export function editable(object: KubeObject): Editable {
  const { name, labels, annotations } = object.metadata;
  return {
    metadata: { name, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
    ...(object.spec !== undefined ? { spec: object.spec as JsonObject } : {}),
  };
}

/** A new object of the kind, before the user fills it in. */
export function blank(kind: KindInfo): Editable {
  const specs: Record<KindInfo['kind'], JsonObject> = {
    Project: {},
    Workspace: { tool: { name: 'opentofu' } },
    Rollout: { stages: [{ workspace: '' }] },
    VariableSet: { variables: [] },
  };
  return { metadata: {}, spec: specs[kind.kind] };
}

/**
 * The draft from the YAML view: `metadata` (name, labels, annotations) and `spec` only; an existing
 * object keeps its name; a sensitive value is typed into its password field, never into the YAML.
 */
export function fromYaml(value: unknown, creating: boolean, name: string | undefined): Editable {
  if (!isJsonObject(value)) throw new Error('The YAML must be a mapping with metadata and spec.');
  const unknown = Object.keys(value).filter((key) => key !== 'metadata' && key !== 'spec');
  if (unknown.length > 0) throw new Error(`Only metadata and spec are edited here, not ${unknown.join(', ')}.`);
  const metadata = value.metadata ?? {};
  if (!isJsonObject(metadata)) throw new Error('metadata must be a mapping.');
  const extra = Object.keys(metadata).filter((key) => !['name', 'labels', 'annotations'].includes(key));
  if (extra.length > 0)
    throw new Error(`Of metadata only name, labels and annotations are edited here, not ${extra.join(', ')}.`);
  if (!creating && metadata.name !== name) throw new Error(`The name stays ${name}: a new name is a new object.`);
  if (value.spec !== undefined && !isJsonObject(value.spec)) throw new Error('spec must be a mapping.');
  const variables = isJsonObject(value.spec) && Array.isArray(value.spec.variables) ? value.spec.variables : [];
  const revealed = variables.filter(
    (variable) => isJsonObject(variable) && variable.sensitive === true && variable.value !== undefined,
  );
  if (revealed.length > 0)
    throw new Error(
      `A sensitive value is typed into its password field in the form, never into the YAML: remove the value of ${revealed
        .map((variable) => (variable as JsonObject).name)
        .join(', ')}.`,
    );
  return value as unknown as Editable;
}
