// Label selectors as kube-apiserver parses them (k8s.io/apimachinery/pkg/labels) plus the structured form used by
// ClusterRole aggregation rules, and the metadata field selectors every resource supports.
import { badRequest } from '../http/status.ts';

type Operator = 'exists' | 'notexists' | 'in' | 'notin' | 'gt' | 'lt';

interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

/** A parsed selector: matches when every requirement does. */
export type LabelSelector = Requirement[];

function matchesRequirement(labels: Record<string, string>, requirement: Requirement): boolean {
  const value = labels[requirement.key];
  switch (requirement.operator) {
    case 'exists':
      return value !== undefined;
    case 'notexists':
      return value === undefined;
    case 'in':
      return value !== undefined && requirement.values.includes(value);
    case 'notin':
      return value === undefined || !requirement.values.includes(value);
    case 'gt':
    case 'lt': {
      const number = Number(value);
      const bound = Number(requirement.values[0]);
      if (value === undefined || !Number.isInteger(number)) return false;
      return requirement.operator === 'gt' ? number > bound : number < bound;
    }
  }
}

/** Whether labels satisfy every requirement of the selector. */
export function matchesLabels(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  return selector.every((requirement) => matchesRequirement(labels ?? {}, requirement));
}

// Tokens of the selector language: identifiers (keys and values), operators, parentheses and commas.
const TOKEN = /\s*(!=|==|=|!|\(|\)|,|>|<|[A-Za-z0-9_.\-/]+)/y;

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break;
    const match = TOKEN.exec(text);
    if (!match) throw badRequest(`unable to parse requirement: invalid character in selector "${text}"`);
    tokens.push(match[1]!);
  }
  return tokens;
}

const IDENTIFIER = /^[A-Za-z0-9_.\-/]+$/;

/** Parses `a=b,c!=d,e in (x,y),f notin (z),g,!h`; a syntax error is a 400 BadRequest. */
export function parseLabelSelector(text: string | undefined): LabelSelector {
  if (!text) return [];
  const tokens = tokenize(text);
  const requirements: Requirement[] = [];
  let position = 0;
  const fail = (what: string): never => {
    throw badRequest(`unable to parse requirement: ${what}`);
  };
  const next = (): string | undefined => tokens[position++];
  const identifier = (): string => {
    const token = next();
    if (token === undefined || !IDENTIFIER.test(token)) fail(`found '${token ?? ''}', expected: identifier`);
    return token!;
  };
  while (position < tokens.length) {
    if (tokens[position] === '!') {
      position++;
      requirements.push({ key: identifier(), operator: 'notexists', values: [] });
    } else {
      const key = identifier();
      const operator = tokens[position];
      if (operator === undefined || operator === ',') {
        requirements.push({ key, operator: 'exists', values: [] });
      } else if (operator === '=' || operator === '==' || operator === '!=' || operator === '>' || operator === '<') {
        position++;
        const value = tokens[position] !== undefined && IDENTIFIER.test(tokens[position]!) ? next()! : '';
        const kind: Operator = operator === '!=' ? 'notin' : operator === '>' ? 'gt' : operator === '<' ? 'lt' : 'in';
        if ((kind === 'gt' || kind === 'lt') && !/^-?\d+$/.test(value))
          fail(`for 'Gt', 'Lt' operators, the value must be an integer`);
        requirements.push({ key, operator: kind, values: [value] });
      } else if (operator === 'in' || operator === 'notin') {
        position++;
        if (next() !== '(') fail(`found '${tokens[position - 1] ?? ''}', expected: '('`);
        const values: string[] = [];
        while (tokens[position] !== ')') {
          if (tokens[position] === undefined) fail(`found '', expected: ')'`);
          if (tokens[position] === ',') {
            position++;
            continue;
          }
          values.push(identifier());
        }
        position++;
        requirements.push({ key, operator, values });
      } else {
        fail(`found '${operator}', expected: in, notin, =, ==, !=, gt, lt`);
      }
    }
    const separator = next();
    if (separator !== undefined && separator !== ',') fail(`found '${separator}', expected: ',' or 'end of string'`);
  }
  return requirements;
}

/** The structured selector of the Kubernetes API (`matchLabels` and `matchExpressions`). */
export interface StructuredLabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** Converts a structured selector; an empty one selects everything, as in the API. */
export function fromStructuredSelector(selector: StructuredLabelSelector): LabelSelector {
  const requirements: Requirement[] = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({
    key,
    operator: 'in',
    values: [value],
  }));
  const operators: Record<string, Operator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: 'notexists' };
  for (const expression of selector.matchExpressions ?? []) {
    const operator = operators[expression.operator];
    if (operator) requirements.push({ key: expression.key, operator, values: expression.values ?? [] });
  }
  return requirements;
}

interface FieldRequirement {
  field: 'metadata.name' | 'metadata.namespace';
  equals: boolean;
  value: string;
}

/** A parsed field selector over the fields every resource supports. */
export type FieldSelector = FieldRequirement[];

/** Parses `metadata.name=x,metadata.namespace!=y`; other fields are a 400 as on a real server. */
export function parseFieldSelector(text: string | undefined): FieldSelector {
  if (!text) return [];
  return text.split(',').map((term) => {
    const match = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(term);
    if (!match) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
    const field = match[1]!;
    if (field !== 'metadata.name' && field !== 'metadata.namespace') {
      throw badRequest(`field label not supported: ${field}`);
    }
    return { field, equals: match[2] !== '!=', value: match[3]! };
  });
}

/** Whether an object's name and namespace satisfy the field selector. */
export function matchesFields(selector: FieldSelector, metadata: { name?: string; namespace?: string }): boolean {
  return selector.every((requirement) => {
    const actual = (requirement.field === 'metadata.name' ? metadata.name : metadata.namespace) ?? '';
    return (actual === requirement.value) === requirement.equals;
  });
}
