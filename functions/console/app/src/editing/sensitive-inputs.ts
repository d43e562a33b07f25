// Sensitive values are write-only (issue 40, item 2). What a user types for one stays in its password
// field (an uncontrolled input: no component state, no draft, nothing the YAML view shows) until
// the write that carries it is built; after the save it is sent with, every such field is emptied,
// so the page holds no value once the request is made.
import { isJsonObject } from './json-values.ts';

export interface EditedVariable {
  name?: string;
  sensitive?: boolean;
  value?: string;
  valueFrom?: unknown;
  [field: string]: unknown;
}

/** The password fields of a VariableSet editor's rows, by row. */
export class SensitiveInputs {
  /** A stable id per variable row, so a field keeps its row when rows above it go. */
  #rows: string[] = [];
  readonly #fields = new Map<string, HTMLInputElement>();
  #nextRow = 0;

  /** The ids of `count` rows (rows added or removed elsewhere, the YAML view say, are matched by position). */
  rowIds(count: number): string[] {
    while (this.#rows.length < count) this.#rows.push(`row-${this.#nextRow++}`);
    if (this.#rows.length > count) this.#rows.length = count;
    return this.#rows;
  }

  removeRow(index: number): void {
    this.#rows.splice(index, 1);
  }

  register(row: string, field: HTMLInputElement | null): void {
    if (field) this.#fields.set(row, field);
    else this.#fields.delete(row);
  }

  #typed(index: number): string {
    const row = this.#rows[index];
    return (row !== undefined ? this.#fields.get(row)?.value : undefined) ?? '';
  }

  /**
   * The object to send: each variable whose password field holds a value gets it as its `value`
   * (sensitive, without the reference it replaces). Built at sending time only.
   */
  withValues<T>(object: T): T {
    const variables = variablesOf(object);
    if (!variables) return object;
    const spec = (object as { spec: Record<string, unknown> }).spec;
    return {
      ...object,
      spec: {
        ...spec,
        variables: variables.map((variable, index) => {
          const typed = this.#typed(index);
          if (typed === '') return variable;
          const { valueFrom: _replaced, ...rest } = variable;
          return { ...rest, sensitive: true, value: typed };
        }),
      },
    };
  }

  /** The rows of sensitive variables that have no value at all: none kept, none typed. */
  missingValues(object: unknown): number[] {
    return (variablesOf(object) ?? []).flatMap((variable, index) =>
      variable.sensitive === true &&
      variable.value === undefined &&
      variable.valueFrom === undefined &&
      this.#typed(index) === ''
        ? [index]
        : [],
    );
  }

  /** Empties every password field: called once the write that carried their values was sent. */
  clear(): void {
    for (const field of this.#fields.values()) field.value = '';
  }
}

function variablesOf(object: unknown): EditedVariable[] | undefined {
  const spec = isJsonObject(object) ? object.spec : undefined;
  const variables = isJsonObject(spec) ? spec.variables : undefined;
  return Array.isArray(variables) ? (variables as EditedVariable[]) : undefined;
}
