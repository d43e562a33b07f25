// A VariableSet's variables in the editor (issue 40, items 1 and 2). A sensitive variable's value is
// never shown: the row says whether one is set (the API keeps it in a Secret and answers only the
// reference), and a password field replaces it. What is typed there lives in that field alone
// (SensitiveInputs) until the save that sends it.
import { getIn } from './json-values.ts';
import { CheckboxField, FieldMessages, SelectField, TextField, useEditor, useFieldMessages } from './editor-fields.tsx';
import type { EditedVariable, SensitiveInputs } from './sensitive-inputs.ts';

const PATH = 'spec.variables';

export function VariablesField({ sensitive }: { sensitive: SensitiveInputs }) {
  const { draft, update, errorsAt } = useEditor();
  const listed = getIn(draft, PATH);
  const variables = (Array.isArray(listed) ? listed : []) as EditedVariable[];
  const rows = sensitive.rowIds(variables.length);
  const replace = (index: number, variable: EditedVariable | undefined) => {
    const next = [...variables];
    if (variable) next[index] = variable;
    else {
      next.splice(index, 1);
      sensitive.removeRow(index);
    }
    update(PATH, next);
  };
  const listErrors = errorsAt(PATH);
  return (
    <fieldset class="rows">
      <legend>Variables</legend>
      {listErrors.length > 0 && <p class="field-error">{listErrors.join(' ')}</p>}
      {variables.map((variable, index) => (
        <VariableRow
          key={rows[index]}
          row={rows[index]!}
          index={index}
          variable={variable}
          sensitive={sensitive}
          onChange={(changed) => replace(index, changed)}
        />
      ))}
      <button type="button" class="secondary" onClick={() => update(PATH, [...variables, { name: '' }])}>
        Add variable
      </button>
    </fieldset>
  );
}

function VariableRow({
  row,
  index,
  variable,
  sensitive,
  onChange,
}: {
  row: string;
  index: number;
  variable: EditedVariable;
  sensitive: SensitiveInputs;
  onChange: (variable: EditedVariable | undefined) => void;
}) {
  const path = `${PATH}[${index}]`;
  const name = variable.name || `number ${index + 1}`;
  const toggleSensitive = (event: Event) => {
    const on = (event.currentTarget as HTMLInputElement).checked;
    // A sensitive value is typed into its password field, never carried over from a visible one; and a
    // kept value stays in its Secret, unread: a variable made plain needs a new, visible value.
    const { valueFrom: _kept, value: _shown, ...rest } = variable;
    onChange({ ...rest, sensitive: on });
  };
  const sensitiveId = `variable-${row}-sensitive`;
  return (
    <fieldset class="row">
      <legend>Variable {name}</legend>
      <TextField label="Name" path={`${path}.name`} required />
      <SelectField label="Category" path={`${path}.category`} options={['terraform', 'env']} />
      <div class="field checkbox">
        <input id={sensitiveId} type="checkbox" checked={variable.sensitive === true} onChange={toggleSensitive} />
        <label for={sensitiveId}>Sensitive (write-only: kept in a Secret, never shown)</label>
      </div>
      {variable.sensitive === true ? (
        <SensitiveValue row={row} path={`${path}.value`} name={name} variable={variable} sensitive={sensitive} />
      ) : variable.valueFrom !== undefined ? (
        <p class="muted">Value from {secretReference(variable.valueFrom)} (change it in the YAML view).</p>
      ) : (
        <TextField label="Value" path={`${path}.value`} />
      )}
      <CheckboxField label="HCL (parse the value as HCL)" path={`${path}.hcl`} />
      <TextField label="Description" path={`${path}.description`} />
      <button type="button" class="danger" onClick={() => onChange(undefined)}>
        Remove variable {name}
      </button>
    </fieldset>
  );
}

/** Set or not set, and a password field to replace it; the value itself is never on the page. */
function SensitiveValue({
  row,
  path,
  name,
  variable,
  sensitive,
}: {
  row: string;
  path: string;
  name: string;
  variable: EditedVariable;
  sensitive: SensitiveInputs;
}) {
  const { id, errors, aria } = useFieldMessages(path, true);
  const isSet = variable.valueFrom !== undefined;
  const state = isSet ? `set (kept in ${secretReference(variable.valueFrom)})` : 'not set';
  return (
    <div class="field">
      <label for={id}>{isSet ? `New value for ${name}` : `Value for ${name}`}</label>
      <input
        id={id}
        type="password"
        autoComplete="new-password"
        spellcheck={false}
        ref={(field) => sensitive.register(row, field)}
        {...aria}
      />
      <FieldMessages
        id={id}
        hint={
          <span data-testid="sensitive-state">
            Value {state}.{isSet ? ' Leave empty to keep it.' : ''}
          </span>
        }
        errors={errors}
      />
    </div>
  );
}

function secretReference(valueFrom: unknown): string {
  const reference = (valueFrom as { secretKeyRef?: { name?: string; key?: string } }).secretKeyRef;
  return reference ? `Secret ${reference.name}, key ${reference.key}` : 'a reference';
}
