import { useState } from 'preact/hooks';
import { useProjectPermissions } from '../access.ts';
import type { Api } from '../api.ts';
import { stageNeedsApproval, whoStillApproves } from '../../../../../shared/contract/rules/rollout-stage.ts';
import { ROLLOUT, WORKSPACE, objectHref } from '../kinds.ts';
import { useObject } from '../use-object.ts';
import { ApproveStage, type Rollout, type RolloutStage, revisionAuthor } from './approvals.tsx';
import { Breadcrumbs, DataTable, Facts, LoadedView, PageNotice, PageTitle, TimeCell } from './common.tsx';
import { ObjectActions } from './object-actions.tsx';
import { OverrideStage, mayOverride } from './override-action.tsx';

/** How a stage's approval reads: what it needs. */
function approvalNeeded(stage: RolloutStage): string {
  if (stage.approval?.distinctFromAuthor) return 'required, four eyes';
  return stageNeedsApproval(stage) ? 'required' : 'none';
}

/** A Rollout: its revision, its stages in order with their approvals, and Approve where a stage waits and the user may. */
export function RolloutPage({ api, project, rollout }: { api: Api; project: string; rollout: string }) {
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const permissions = useProjectPermissions(api, project);
  const loaded = useObject<Rollout>(api, ROLLOUT, project, rollout);
  const mayApprove = permissions.may('approve', 'rollouts', rollout);
  return (
    <>
      <Breadcrumbs project={project} current={rollout} />
      <PageTitle>Rollout {rollout}</PageTitle>
      <PageNotice text={notice} />
      <LoadedView loaded={loaded}>
        {({ group, object: found }) => {
          const stages = found.spec?.stages ?? [];
          const statusOf = (workspace: string) => found.status?.stages?.find((stage) => stage.workspace === workspace);
          const waiting = (stage: RolloutStage) => stageNeedsApproval(stage) && stage.approved !== true;
          const approveColumn = mayApprove && stages.some(waiting);
          return (
            <>
              <Facts
                facts={[
                  ['Revision', found.spec?.revision],
                  ['Description', found.spec?.description],
                  ['Failure policy', found.spec?.failurePolicy ?? 'Halt'],
                  ['Phase', found.status?.phase],
                  ['Revision author', revisionAuthor(found)],
                ]}
              />
              <ObjectActions api={api} group={group} kind={ROLLOUT} object={found} permissions={permissions} />
              <h2>Stages</h2>
              <DataTable
                caption="In order: each starts when the one before it is applied"
                columns={['Stage', 'Workspace', 'Approval', 'Approved', 'Phase', approveColumn && 'Approve']}
              >
                {stages.map((stage, index) => {
                  const status = statusOf(stage.workspace);
                  return (
                    <tr key={stage.workspace} data-stage={stage.workspace}>
                      <td>{index + 1}</td>
                      <td>
                        <a href={objectHref(WORKSPACE, project, stage.workspace)}>{stage.workspace}</a>
                      </td>
                      <td>{approvalNeeded(stage)}</td>
                      <td class="wrap">
                        {stage.approved === true ? (
                          status?.approval?.approvedBy ? (
                            <>
                              by {status.approval.approvedBy}, <TimeCell value={status.approval.approvedAt} />
                            </>
                          ) : (
                            'yes'
                          )
                        ) : waiting(stage) ? (
                          <>
                            <strong>awaiting approval</strong>
                            {whoStillApproves(found, stage) && ` (${whoStillApproves(found, stage)})`}
                          </>
                        ) : (
                          '—'
                        )}
                      </td>
                      <td>{status?.phase ?? '—'}</td>
                      {approveColumn && (
                        <td>
                          {waiting(stage) && (
                            <ApproveStage
                              api={api}
                              project={project}
                              rollout={found}
                              stage={stage}
                              index={index}
                              onApproved={(text) => {
                                setNotice(text);
                                loaded.reload();
                              }}
                            />
                          )}
                          {waiting(stage) && mayOverride(permissions, 'rollouts', rollout) && (
                            <OverrideStage
                              api={api}
                              project={project}
                              rollout={found}
                              stage={stage}
                              onApproved={(text) => {
                                setNotice(text);
                                loaded.reload();
                              }}
                            />
                          )}
                        </td>
                      )}
                    </tr>
                  );
                })}
              </DataTable>
            </>
          );
        }}
      </LoadedView>
    </>
  );
}
