// A JSON Schema (as /openapi.json carries it) rendered as nested HTML lists a person can read:
// each field with its type, whether it is required, its constraints and its description;
// `$ref`s link to the schema's own section of the reference page.

type Schema = Record<string, unknown>;

const COMPONENT_PREFIX = '#/components/schemas/';
/** The CRD schemas nest deeply; below this the reader follows the field's description instead. */
const MAX_DEPTH = 8;
const CONSTRAINTS = [
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'default',
] as const;

/** The HTML id of a component schema's section. */
export function schemaAnchor(name: string): string {
  return `schema-${name}`;
}

/** A schema as HTML: a type line, then its fields (objects) or its items (arrays). */
export function renderSchema(schema: Schema, depth = 0): string {
  return `${typeLine(schema)}${children(schema, depth)}`;
}

function typeLine(schema: Schema): string {
  const ref = typeof schema.$ref === 'string' ? schema.$ref : undefined;
  if (ref?.startsWith(COMPONENT_PREFIX)) {
    const name = ref.slice(COMPONENT_PREFIX.length);
    return `<a class="type" href="#${escapeHtml(schemaAnchor(name))}">${escapeHtml(name)}</a>`;
  }
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alternatives)
    return `<span class="type">one of</span> ${alternatives.map((alternative) => typeLine(alternative)).join(' · ')}`;
  const parts: string[] = [];
  if ('const' in schema) parts.push(`<code>${escapeHtml(JSON.stringify(schema.const))}</code>`);
  else if (Array.isArray(schema.enum))
    parts.push(
      `<span class="type">one of</span> ${schema.enum.map((value) => `<code>${escapeHtml(JSON.stringify(value))}</code>`).join(', ')}`,
    );
  else parts.push(`<span class="type">${escapeHtml(typeName(schema))}</span>`);
  const constraints = CONSTRAINTS.filter((key) => schema[key] !== undefined).map(
    (key) => `${key} ${escapeHtml(JSON.stringify(schema[key]))}`,
  );
  if (constraints.length) parts.push(`<span class="constraint">${constraints.join(', ')}</span>`);
  return parts.join(' ');
}

function typeName(schema: Schema): string {
  const type = Array.isArray(schema.type)
    ? schema.type.join(' or ')
    : typeof schema.type === 'string'
      ? schema.type
      : 'any';
  if (type !== 'array') return type;
  const items = (schema.items ?? {}) as Schema;
  if (typeof items.$ref === 'string') return 'array of';
  return `array of ${typeName(items)}`;
}

function children(schema: Schema, depth: number): string {
  if (depth >= MAX_DEPTH) return '';
  if (schema.type === 'array' && schema.items) {
    const items = schema.items as Schema;
    if (typeof items.$ref === 'string') return ` ${typeLine(items)}`;
    return children(items, depth);
  }
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const names = Object.keys(properties);
  if (names.length === 0) return additionalProperties(schema, depth);
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const fields = names.map((name) => {
    const field = properties[name]!;
    const description =
      typeof field.description === 'string'
        ? ` <span class="description">${renderInline(field.description)}</span>`
        : '';
    return `<li><code class="field">${escapeHtml(name)}</code>${required.has(name) ? ' <span class="required">required</span>' : ''} ${typeLine(field)}${description}${children(field, depth + 1)}</li>`;
  });
  return `<ul class="fields">${fields.join('')}</ul>`;
}

function additionalProperties(schema: Schema, depth: number): string {
  const values = schema.additionalProperties;
  if (!values || typeof values !== 'object') return '';
  return `<ul class="fields"><li><code class="field">&lt;any key&gt;</code> ${typeLine(values as Schema)}${children(values as Schema, depth + 1)}</li></ul>`;
}

/** Escapes text and turns `backticks` into code spans, the only markup the summaries use. */
export function renderInline(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
