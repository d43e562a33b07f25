// The common fields of each kind as a form (issue 40, item 1; docs/resources.md, "Kinds and fields");
// everything else (labels, annotations, a Workspace's clone credentials...) is in the YAML view.
import type { KindInfo } from '../kinds.ts';
import { CheckboxField, NameField, SelectField, TextField } from './editor-fields.tsx';
import type { SensitiveInputs } from './sensitive-inputs.ts';
import { StagesField } from './stages-field.tsx';
import { VariablesField } from './variables-field.tsx';

export interface KindFormProps {
  sensitive: SensitiveInputs;
  /** Names of the Project's Workspaces and VariableSets, offered where a field names one. */
  workspaces: string[];
  variableSets: string[];
}

const DNS_LABEL_HINT = 'Lower-case letters, digits and "-", at most 63 characters.';
const DNS_NAME_HINT = 'Lower-case letters, digits, "-" and ".", at most 253 characters.';
const WORKSPACES_LIST = 'project-workspaces';

/** VariableSets named in order, as one line: `common, production`. */
const formatRefs = (value: unknown) =>
  Array.isArray(value) ? value.map((reference: { name?: string }) => reference.name ?? '').join(', ') : '';
const parseRefs = (text: string) => {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return names.length > 0 ? names.map((name) => ({ name })) : undefined;
};

function ProjectForm() {
  return (
    <>
      <NameField hint={`${DNS_LABEL_HINT} The Project's namespace gets the same name.`} />
      <TextField label="Display name" path="spec.displayName" />
      <TextField label="Description" path="spec.description" multiline />
      <TextField label="Contact" path="spec.contact" hint="Who to ask: a team, an e-mail address or a chat channel." />
    </>
  );
}

function WorkspaceForm({ variableSets }: KindFormProps) {
  return (
    <>
      <NameField hint={DNS_NAME_HINT} />
      <TextField label="Description" path="spec.description" multiline />
      <TextField
        label="Repository"
        path="spec.source.repository"
        required
        hint="Git URL: https://, ssh:// or git@host:path."
      />
      <TextField label="Ref" path="spec.source.ref" hint="Branch, tag or commit; empty: the default branch." />
      <TextField label="Path" path="spec.source.path" hint="Folder of the root module, relative; empty: the root." />
      <TextField
        label="Clone credentials Secret"
        path="spec.source.credentialsSecretRef.name"
        hint="A Secret of the Project with username and password, or ssh-privatekey."
      />
      <SelectField label="Tool" path="spec.tool.name" options={['opentofu', 'terraform']} />
      <TextField label="Tool version" path="spec.tool.version" required hint="Exact version, such as 1.8.2." />
      <TextField
        label="VariableSets"
        path="spec.variableSetRefs"
        format={formatRefs}
        parse={parseRefs}
        errorsWithin
        hint={`In order, comma-separated; later ones win.${variableSets.length > 0 ? ` This Project has: ${variableSets.join(', ')}.` : ''}`}
      />
      <CheckboxField label="Apply a successful plan without approval (auto-apply)" path="spec.autoApply" />
      <CheckboxField
        label="Allow apply runs without a plan"
        path="spec.allowApplyWithoutPlan"
        hint="Otherwise an apply run comes only from approving a succeeded plan."
      />
      <CheckboxField label="Suspend: start no new runs" path="spec.suspend" />
    </>
  );
}

function RolloutForm({ workspaces }: KindFormProps) {
  return (
    <>
      <NameField hint={DNS_NAME_HINT} />
      <TextField label="Revision" path="spec.revision" required hint="The commit or tag to promote." />
      <TextField
        label="Description"
        path="spec.description"
        multiline
        hint="What the change is, for whoever approves it."
      />
      <SelectField
        label="Failure policy"
        path="spec.failurePolicy"
        options={['Halt', 'Continue']}
        hint="Whether a failed stage stops the Rollout."
      />
      <datalist id={WORKSPACES_LIST}>
        {workspaces.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
      <StagesField workspacesList={WORKSPACES_LIST} />
    </>
  );
}

function VariableSetForm({ sensitive }: KindFormProps) {
  return (
    <>
      <NameField hint={DNS_NAME_HINT} />
      <TextField label="Description" path="spec.description" multiline />
      <VariablesField sensitive={sensitive} />
    </>
  );
}

export const KIND_FORMS: Record<KindInfo['kind'], (props: KindFormProps) => preact.JSX.Element> = {
  Project: ProjectForm,
  Workspace: WorkspaceForm,
  Rollout: RolloutForm,
  VariableSet: VariableSetForm,
};
