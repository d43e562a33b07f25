// A Rollout's stages in the editor: in order, each a Workspace of the Project and whether it waits
// for an approval (the approvals contract: `approval.required`, `approval.distinctFromAuthor`; the
// deprecated `requireApproval` reads as `approval.required` and is rewritten so when the stage is
// changed). Approving is not edited here: it is its own action, with its own permission.
import { getIn } from './json-values.ts';
import { stageNeedsApproval } from '../../../../../shared/contract/rules/rollout-stage.ts';
import { TextField, useEditor } from './editor-fields.tsx';

const PATH = 'spec.stages';

interface EditedStage {
  workspace?: string;
  requireApproval?: boolean;
  approval?: { required?: boolean; distinctFromAuthor?: boolean };
  [field: string]: unknown;
}

export function StagesField({ workspacesList }: { workspacesList: string }) {
  const { draft, update, errorsAt } = useEditor();
  const listed = getIn(draft, PATH);
  const stages = (Array.isArray(listed) ? listed : []) as EditedStage[];
  const set = (next: EditedStage[]) => update(PATH, next);
  const change = (index: number, stage: EditedStage) => set(stages.map((other, at) => (at === index ? stage : other)));
  const move = (from: number, to: number) => {
    const next = [...stages];
    const [moved] = next.splice(from, 1);
    next.splice(to, 0, moved!);
    set(next);
  };
  const withApproval = (stage: EditedStage, change: Partial<NonNullable<EditedStage['approval']>>): EditedStage => {
    const { requireApproval, ...rest } = stage;
    return { ...rest, approval: { required: requireApproval === true, ...stage.approval, ...change } };
  };
  const listErrors = errorsAt(PATH);
  return (
    <fieldset class="rows">
      <legend>Stages, in order</legend>
      {listErrors.length > 0 && <p class="field-error">{listErrors.join(' ')}</p>}
      {stages.map((stage, index) => {
        const label = `Stage ${index + 1}`;
        const id = `stage-${index}`;
        return (
          <fieldset class="row" key={index}>
            <legend>
              {label}
              {stage.workspace ? `: ${stage.workspace}` : ''}
            </legend>
            <TextField label="Workspace" path={`${PATH}[${index}].workspace`} required list={workspacesList} />
            <div class="field checkbox">
              <input
                id={`${id}-required`}
                type="checkbox"
                checked={stageNeedsApproval(stage)}
                onChange={(event) => {
                  const on = (event.currentTarget as HTMLInputElement).checked;
                  // Four eyes implies an approval: a stage that needs none needs no distinct approver either.
                  change(
                    index,
                    withApproval(stage, on ? { required: true } : { required: false, distinctFromAuthor: false }),
                  );
                }}
              />
              <label for={`${id}-required`}>Requires approval before it is applied</label>
            </div>
            <div class="field checkbox">
              <input
                id={`${id}-four-eyes`}
                type="checkbox"
                checked={stage.approval?.distinctFromAuthor === true}
                onChange={(event) => {
                  const on = (event.currentTarget as HTMLInputElement).checked;
                  change(
                    index,
                    withApproval(
                      stage,
                      on ? { required: true, distinctFromAuthor: true } : { distinctFromAuthor: false },
                    ),
                  );
                }}
              />
              <label for={`${id}-four-eyes`}>Four eyes: approved by someone other than the revision's author</label>
            </div>
            <div class="actions">
              <button type="button" class="secondary" disabled={index === 0} onClick={() => move(index, index - 1)}>
                Move {label.toLowerCase()} up
              </button>
              <button
                type="button"
                class="secondary"
                disabled={index === stages.length - 1}
                onClick={() => move(index, index + 1)}
              >
                Move {label.toLowerCase()} down
              </button>
              <button type="button" class="danger" onClick={() => set(stages.filter((_, other) => other !== index))}>
                Remove {label.toLowerCase()}
              </button>
            </div>
          </fieldset>
        );
      })}
      <button type="button" class="secondary" onClick={() => set([...stages, { workspace: '' }])}>
        Add stage
      </button>
    </fieldset>
  );
}
