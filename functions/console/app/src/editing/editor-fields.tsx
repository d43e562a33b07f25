// The form controls of an object editor (issue 40, items 1 and 6): each is labelled, bound to one
// field path of the draft, and shows beside itself what the server said of that field (the
// `Status` causes of a refused write), linked to the control by `aria-describedby`.
import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { type FieldPath, getIn } from './json-values.ts';

export interface EditorState {
  draft: unknown;
  update(path: FieldPath, value: unknown): void;
  /**
   * What the server said about the field at `path` (and, with `within`, about the fields under it; with
   * `required`, that an object holding it is missing: `spec.source: Required value` when the form left
   * the whole source empty).
   */
  errorsAt(path: FieldPath, within?: boolean, required?: boolean): string[];
  /** Whether this is a new object (its name can be chosen). */
  creating: boolean;
}

export const EditorContext = createContext<EditorState | undefined>(undefined);

export function useEditor(): EditorState {
  const editor = useContext(EditorContext);
  if (!editor) throw new Error('an editor field outside an editor');
  return editor;
}

/** The element id of the control for a field path (`spec.stages[0].workspace` → `field-spec-stages-0-workspace`). */
export function fieldId(path: FieldPath): string {
  return `field-${path.replace(/[^A-Za-z0-9]+/g, '-').replace(/-$/, '')}`;
}

/** The messages about one field and the ids that describe its control (hint, errors). */
export function useFieldMessages(path: FieldPath, hint: boolean, within = false, required = false) {
  const { errorsAt } = useEditor();
  const id = fieldId(path);
  const errors = errorsAt(path, within, required);
  const describedBy = [hint ? `${id}-hint` : '', errors.length > 0 ? `${id}-error` : ''].filter(Boolean).join(' ');
  return {
    id,
    errors,
    aria: {
      ...(describedBy ? { 'aria-describedby': describedBy } : {}),
      ...(errors.length > 0 ? { 'aria-invalid': true as const } : {}),
    },
  };
}

export function FieldMessages({ id, hint, errors }: { id: string; hint?: ComponentChildren; errors: string[] }) {
  return (
    <>
      {hint !== undefined && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
      {errors.length > 0 && (
        <small id={`${id}-error`} class="field-error">
          {errors.join(' ')}
        </small>
      )}
    </>
  );
}

interface TextFieldProps {
  label: string;
  path: FieldPath;
  hint?: ComponentChildren;
  required?: boolean;
  multiline?: boolean;
  /** A datalist's id offering values (the Project's Workspaces, say). */
  list?: string;
  /** How the draft's value reads in the field, and back (a list of names as one line). */
  format?: (value: unknown) => string;
  parse?: (text: string) => unknown;
  /** Errors of the fields under `path` show here too (a list edited as one line). */
  errorsWithin?: boolean;
}

export function TextField({
  label,
  path,
  hint,
  required,
  multiline,
  list,
  format,
  parse,
  errorsWithin,
}: TextFieldProps) {
  const { draft, update } = useEditor();
  const { id, errors, aria } = useFieldMessages(path, hint !== undefined, errorsWithin, required);
  const value = getIn(draft, path);
  const shown = format ? format(value) : typeof value === 'string' ? value : '';
  const onInput = (event: Event) => {
    const text = (event.currentTarget as HTMLInputElement | HTMLTextAreaElement).value;
    update(path, parse ? parse(text) : text);
  };
  return (
    <div class="field">
      <label for={id}>
        {label}
        {required && <span class="required"> (required)</span>}
      </label>
      {multiline ? (
        <textarea id={id} rows={3} value={shown} onInput={onInput} {...aria} />
      ) : (
        <input id={id} type="text" value={shown} onInput={onInput} list={list} spellcheck={false} {...aria} />
      )}
      <FieldMessages id={id} hint={hint} errors={errors} />
    </div>
  );
}

export function SelectField({
  label,
  path,
  options,
  hint,
}: {
  label: string;
  path: FieldPath;
  options: string[];
  hint?: ComponentChildren;
}) {
  const { draft, update } = useEditor();
  const { id, errors, aria } = useFieldMessages(path, hint !== undefined);
  const value = getIn(draft, path);
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select
        id={id}
        value={typeof value === 'string' ? value : ''}
        onChange={(event) => update(path, (event.currentTarget as HTMLSelectElement).value || undefined)}
        {...aria}
      >
        <option value="">(the default: {options[0]})</option>
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
      <FieldMessages id={id} hint={hint} errors={errors} />
    </div>
  );
}

export function CheckboxField({ label, path, hint }: { label: string; path: FieldPath; hint?: ComponentChildren }) {
  const { draft, update } = useEditor();
  const { id, errors, aria } = useFieldMessages(path, hint !== undefined);
  return (
    <div class="field checkbox">
      <input
        id={id}
        type="checkbox"
        checked={getIn(draft, path) === true}
        onChange={(event) => update(path, (event.currentTarget as HTMLInputElement).checked)}
        {...aria}
      />
      <label for={id}>{label}</label>
      <FieldMessages id={id} hint={hint} errors={errors} />
    </div>
  );
}

/** The name of a new object (fixed once it exists: the page's heading says it). */
export function NameField({ hint }: { hint: string }) {
  const { creating } = useEditor();
  return creating ? <TextField label="Name" path="metadata.name" required hint={hint} /> : null;
}
