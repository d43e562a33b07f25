// Creating and changing an object (issue 40, item 1): a form for the common fields and a YAML view
// for the rest; "Review" asks the server for a dry run (`?dryRun=All`) and shows what it would store,
// "Save" sends it for real. An edit goes as a merge patch carrying the `resourceVersion` the user
// saw, so a change made meanwhile by someone else is a 409: the editor then shows what changed and
// lets the user put their changes on top of the current version and try again. What the server
// refuses (a 422 `Status`) shows beside each field it names.
import { useEffect, useRef, useState } from 'preact/hooks';
import { forgetRules } from '../access.ts';
import { type Answer, type Api, ApiError, type FieldCause, errorText } from '../api.ts';
import { type KindInfo, objectPath, objectTitle } from '../kinds.ts';
import type { KubeObject } from '../platform-api.ts';
import { DiffView } from './diff-view.tsx';
import { EditorContext, type EditorState } from './editor-fields.tsx';
import {
  applyPatch,
  type FieldPath,
  isJsonObject,
  type JsonObject,
  mergePatch,
  sameJson,
  setIn,
} from './json-values.ts';
import { KIND_FORMS } from './kind-forms.tsx';
import { SensitiveInputs } from './sensitive-inputs.ts';
import { useYaml, type YamlCodec } from './yaml-text.ts';
import { blank, type Editable, editable, fromYaml } from './editable.ts';

/** The version the user's edit is based on: what they saw, and its `resourceVersion`. */
interface Pinned {
  base: Editable;
  version: string | undefined;
}

type Step =
  | { kind: 'edit' }
  | { kind: 'review'; stored: Editable; warnings: string[] }
  | { kind: 'conflict'; current: KubeObject; message: string };

interface Refusal {
  message: string;
  causes: FieldCause[];
}

export interface ObjectEditorProps {
  api: Api;
  group: string;
  kind: KindInfo;
  /** The Project: the namespace of a namespaced kind. */
  project: string | undefined;
  /** The object as loaded; none when creating one. */
  original: KubeObject | undefined;
  workspaces: string[];
  variableSets: string[];
  /** Told the stored object, and the server's warnings about the write. */
  onSaved(object: KubeObject, created: boolean, warnings: string[]): void;
}

export function ObjectEditor(props: ObjectEditorProps) {
  const { codec, failure } = useYaml();
  if (failure)
    return (
      <p class="error" role="alert">
        {failure}
      </p>
    );
  if (!codec) return <p aria-busy="true">Loading the editor…</p>;
  return <LoadedEditor {...props} codec={codec} />;
}

function LoadedEditor({
  api,
  group,
  kind,
  project,
  original,
  workspaces,
  variableSets,
  onSaved,
  codec,
}: ObjectEditorProps & { codec: YamlCodec }) {
  const creating = original === undefined;
  const [pinned, setPinned] = useState<Pinned>(() => ({
    base: original ? editable(original) : blank(kind),
    version: original?.metadata.resourceVersion,
  }));
  const [draft, setDraft] = useState<Editable>(pinned.base);
  const [view, setView] = useState<'form' | 'yaml'>('form');
  const [yamlText, setYamlText] = useState('');
  const [yamlError, setYamlError] = useState<string | undefined>(undefined);
  const [step, setStep] = useState<Step>({ kind: 'edit' });
  const [refusal, setRefusal] = useState<Refusal | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const sensitive = useRef(new SensitiveInputs()).current;
  const name = draft.metadata.name ?? '';
  const title = objectTitle(kind, creating ? name || `(new)` : (pinned.base.metadata.name ?? ''));

  const editor: EditorState = {
    draft,
    creating,
    update: (path: FieldPath, value: unknown) => setDraft((current) => setIn(current, path, value)),
    errorsAt(path, within, required) {
      return (refusal?.causes ?? [])
        .filter(
          (cause) =>
            cause.field === path ||
            (within === true && (cause.field?.startsWith(`${path}.`) || cause.field?.startsWith(`${path}[`))) ||
            // An empty field leaves its object out of the draft, and the server names the missing object
            // (issue 44, item 15): a required field under it is where that is fixed.
            (required === true && cause.reason === 'FieldValueRequired' && path.startsWith(`${cause.field}.`)),
        )
        .map((cause) => cause.message ?? cause.reason ?? 'invalid');
    },
  };

  /** The draft as the current view has it: the YAML read back when that is the view; undefined if it does not read. */
  const readDraft = (): Editable | undefined => {
    if (view === 'form') return draft;
    try {
      const read = fromYaml(codec.parse(yamlText), creating, pinned.base.metadata.name);
      setYamlError(undefined);
      setDraft(read);
      return read;
    } catch (error) {
      setYamlError(errorText(error));
      return undefined;
    }
  };

  const showView = (next: 'form' | 'yaml') => {
    if (next === view) return;
    if (next === 'yaml') {
      setYamlText(codec.stringify(draft));
      setYamlError(undefined);
      setView('yaml');
    } else if (readDraft()) setView('form');
  };

  /** The write of `object` against `against`: a create, or a merge patch pinned to the version the user saw. */
  const send = (object: Editable, against: Pinned, dryRun: boolean): Promise<Answer<KubeObject>> => {
    const query = dryRun ? '?dryRun=All' : '';
    const withValues = sensitive.withValues(object);
    if (creating)
      return api.write('POST', `${objectPath(group, kind, project)}${query}`, {
        body: { apiVersion: `${group}/v1alpha1`, kind: kind.kind, ...withValues },
      });
    const patch = mergePatch(against.base, withValues) as JsonObject;
    const metadata = isJsonObject(patch.metadata) ? patch.metadata : {};
    return api.write('PATCH', `${objectPath(group, kind, project, against.base.metadata.name)}${query}`, {
      contentType: 'application/merge-patch+json',
      body: { ...patch, metadata: { ...metadata, resourceVersion: against.version } },
    });
  };

  const refused = async (error: unknown, against: Pinned) => {
    if (error instanceof ApiError && error.status === 409 && error.reason === 'Conflict' && !creating) {
      try {
        const current = await api.get<KubeObject>(objectPath(group, kind, project, against.base.metadata.name));
        setStep({ kind: 'conflict', current, message: error.message });
        return;
      } catch (reading) {
        setRefusal({
          message: `${error.message} (the current version cannot be read: ${errorText(reading)})`,
          causes: [],
        });
      }
    } else if (error instanceof ApiError) {
      if (error.status === 403 && project) forgetRules(project);
      const causes =
        error.reason === 'AlreadyExists' ? [{ field: 'metadata.name', message: error.message }] : error.causes;
      setRefusal({ message: error.message, causes });
    } else setRefusal({ message: `The API cannot be reached: ${errorText(error)}`, causes: [] });
    setStep({ kind: 'edit' });
  };

  /** Asks the server what it would store (a dry run) and shows it; nothing is written. */
  const review = async (object: Editable | undefined, against: Pinned) => {
    if (!object) return;
    setNotice(undefined);
    const missing = sensitive.missingValues(object);
    if (missing.length > 0) {
      setView('form');
      setRefusal({
        message: 'A sensitive variable needs a value.',
        causes: missing.map((index) => ({
          field: `spec.variables[${index}].value`,
          message: 'Required value: type it here (it is never shown again).',
        })),
      });
      return;
    }
    if (!creating && sameJson(mergePatch(against.base, sensitive.withValues(object)), {})) {
      setRefusal(undefined);
      setNotice('Nothing changed: there is nothing to save.');
      return;
    }
    setBusy(true);
    try {
      const { body, warnings } = await send(object, against, true);
      setRefusal(undefined);
      setStep({ kind: 'review', stored: editable(body), warnings });
    } catch (error) {
      await refused(error, against);
    } finally {
      setBusy(false);
    }
  };

  const save = async () => {
    setBusy(true);
    // The values typed for sensitive variables leave the page with this request: the fields are emptied as it goes.
    const sending = send(draft, pinned, false);
    sensitive.clear();
    try {
      const { body, warnings } = await sending;
      onSaved(body, creating, warnings);
    } catch (error) {
      await refused(error, pinned);
    } finally {
      setBusy(false);
    }
  };

  /** Puts the user's changes on top of the version now stored, and reviews them again. */
  const retryOn = (current: KubeObject) => {
    const mine = mergePatch(pinned.base, draft);
    const rebased = applyPatch(editable(current), mine) as Editable;
    const against = { base: editable(current), version: current.metadata.resourceVersion };
    setPinned(against);
    setDraft(rebased);
    setStep({ kind: 'edit' });
    void review(rebased, against);
  };

  const discardFor = (current: KubeObject) => {
    const against = { base: editable(current), version: current.metadata.resourceVersion };
    setPinned(against);
    setDraft(against.base);
    setRefusal(undefined);
    setStep({ kind: 'edit' });
    setNotice(`Your changes were discarded: this is the current version of ${title}.`);
  };

  const Form = KIND_FORMS[kind.kind];
  return (
    <EditorContext.Provider value={editor}>
      {step.kind === 'review' && (
        <section class="panel" aria-labelledby="review-heading">
          <FocusedHeading id="review-heading">Review: what the server will store</FocusedHeading>
          <p>
            The server checked this as a dry run: nothing is saved yet.
            {kind.kind === 'VariableSet' && ' Sensitive values are never shown: each is kept in a Secret.'}
          </p>
          {step.warnings.length > 0 && (
            <ul class="warnings" aria-label="The server's warnings">
              {step.warnings.map((warning) => (
                <li key={warning}>Warning: {warning}</li>
              ))}
            </ul>
          )}
          <DiffView
            before={creating ? '' : codec.stringify(pinned.base)}
            after={codec.stringify(step.stored)}
            label={creating ? `${title} as it will be stored` : `Changes to ${title}`}
          />
          <div class="actions">
            <button type="button" disabled={busy} onClick={save}>
              {creating ? `Create ${title}` : `Save ${title}`}
            </button>
            <button type="button" class="secondary" onClick={() => setStep({ kind: 'edit' })}>
              Back to editing
            </button>
          </div>
        </section>
      )}
      {step.kind === 'conflict' && (
        <section class="panel" aria-labelledby="conflict-heading">
          <FocusedHeading id="conflict-heading">{title} was changed by someone else</FocusedHeading>
          <p class="error">{step.message}</p>
          <p>What changed since you opened it (your starting point, then the version stored now):</p>
          <DiffView
            before={codec.stringify(pinned.base)}
            after={codec.stringify(editable(step.current))}
            label={`Changes to ${title} since you opened it`}
          />
          <div class="actions">
            <button type="button" disabled={busy} onClick={() => retryOn(step.current)}>
              Retry with my changes
            </button>
            <button type="button" class="secondary" onClick={() => discardFor(step.current)}>
              Discard my changes
            </button>
          </div>
        </section>
      )}
      <form
        class="editor"
        hidden={step.kind !== 'edit'}
        aria-label={`${creating ? 'New' : 'Edit'} ${kind.kind}`}
        onSubmit={(event) => {
          event.preventDefault();
          void review(readDraft(), pinned);
        }}
      >
        {refusal && (
          <div class="error" role="alert" data-testid="editor-refusal">
            <p>{refusal.message}</p>
          </div>
        )}
        <p role="status" class="notice">
          {notice ?? ''}
        </p>
        <fieldset class="actions view-switch">
          <legend>View</legend>
          <button type="button" class="secondary" aria-pressed={view === 'form'} onClick={() => showView('form')}>
            Form
          </button>
          <button type="button" class="secondary" aria-pressed={view === 'yaml'} onClick={() => showView('yaml')}>
            YAML
          </button>
        </fieldset>
        {/* Kept while the YAML view shows: a password field's value lives in that field alone. */}
        <div hidden={view !== 'form'}>
          <Form sensitive={sensitive} workspaces={workspaces} variableSets={variableSets} />
        </div>
        {view === 'yaml' && (
          <div class="field">
            <label for="object-yaml">{kind.kind} as YAML (metadata: name, labels, annotations; and spec)</label>
            <textarea
              id="object-yaml"
              class="yaml"
              rows={Math.min(30, Math.max(10, yamlText.split('\n').length + 1))}
              spellcheck={false}
              value={yamlText}
              onInput={(event) => setYamlText((event.currentTarget as HTMLTextAreaElement).value)}
              {...(yamlError ? { 'aria-invalid': true, 'aria-describedby': 'object-yaml-error' } : {})}
            />
            {yamlError && (
              <small id="object-yaml-error" class="field-error">
                {yamlError}
              </small>
            )}
          </div>
        )}
        <div class="actions">
          <button type="submit" disabled={busy}>
            Review {creating ? 'the new' : 'the changes to'} {kind.kind}
          </button>
        </div>
      </form>
    </EditorContext.Provider>
  );
}

/** A panel's heading, focused when the panel opens (the form it replaces is hidden). */
function FocusedHeading({ id, children }: { id: string; children: preact.ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <h2 id={id} ref={heading} tabIndex={-1}>
      {children}
    </h2>
  );
}
