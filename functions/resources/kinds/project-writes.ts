import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import type { ProjectSecretsAccess } from '../../../shared/base/config/project-secrets-access.ts';
import type { ClusterObjects } from '../../../shared/domain/resources/cluster-objects.ts';
import { PROJECT } from '../../../shared/contract/kinds/platform-kinds.ts';
import { isOwnedBy, ownerReferenceTo, type PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import { bindProjectSecrets } from './project-secrets-binding.ts';
import { isDeleteDryRun, refuseOrphaning } from '../kubernetes/delete-options.ts';
import { dryRunQuery, plainWrites, type ResourceWrites, type Writer } from './resource-writes.ts';
import { approvalPolicyChanged, CHANGE_APPROVAL_POLICY } from '../../../shared/domain/approvals/approval-policy.ts';
import { APPROVAL_POLICY_ANNOTATION, noteForAudit } from '../../../shared/domain/audit/audit-annotations.ts';
import { judgedWrites, requireForResult } from './judged-writes.ts';
import { invalidField } from './resource-body.ts';
import { windowFieldProblem, type ApprovalWindow } from '../../../shared/contract/rules/approval-windows.ts';
import { timeGatesOf } from '../../../shared/domain/approvals/time-gates.ts';

/**
 * A Project's writes for one request (issue 45): a write whose result changes `spec.approvalPolicy` (a create
 * with one and a re-create included) needs `update` on `projects/approvalpolicy` for that Project, whatever its
 * shape; 403 otherwise, and nothing is written. Its windows must then each be one the gates can evaluate: 422
 * naming the first field that is not (a window that cannot be read would refuse every approval it governs). The
 * audit event notes the change.
 */
export function approvalPolicyWrites(
  objects: ClusterObjects,
  projects: ResourceWrites,
  writer: Writer,
): ResourceWrites {
  return judgedWrites(objects, PROJECT, projects, async (stored, result) => {
    if (!approvalPolicyChanged(stored, result)) return;
    noteForAudit(writer, APPROVAL_POLICY_ANNOTATION, 'changed');
    await requireForResult(writer, { ...CHANGE_APPROVAL_POLICY, group: objects.apiGroup, name: result.metadata.name });
    refuseUnreadableWindows(objects.apiGroup, result);
  });
}

/** 422 `Invalid` naming `spec.approvalPolicy.windows[i].<field>` of the first window that cannot be evaluated. */
function refuseUnreadableWindows(apiGroup: string, project: PlatformObject): void {
  const windows: ApprovalWindow[] = timeGatesOf(project).windows ?? [];
  windows.forEach((window, index) => {
    const problem = windowFieldProblem(window);
    if (problem === undefined) return;
    const value = window[problem.field];
    throw invalidField(
      PROJECT,
      apiGroup,
      project.metadata.name ?? '',
      `spec.approvalPolicy.windows[${index}].${problem.field}`,
      problem.message,
      typeof value === 'string' ? value : undefined,
    );
  });
}

/**
 * Projects own the namespace of the same name: creating one creates the namespace (owned by the
 * Project, so the cluster's garbage collector removes it with it), deleting one deletes it.
 * A namespace that exists but belongs to no Project of that name is never adopted: 409.
 * With `secretsAccess`, the new namespace also gets the RoleBinding that lets the API server
 * write the VariableSets' Secrets there. A dry run changes nothing anywhere: the namespace's
 * create or delete goes to the cluster as a dry run too, and the RoleBinding is left out.
 */
export function projectWrites(objects: ClusterObjects, secretsAccess?: ProjectSecretsAccess): ResourceWrites {
  const plain = plainWrites(objects, PROJECT);
  const projectLabel = `${objects.apiGroup}/project`;

  const refuseForeignNamespace = async (name: string) => {
    const existing = await objects.find<PlatformObject>(objects.corePath('namespaces', { name }));
    if (existing && existing.metadata.labels?.[projectLabel] !== name) {
      throw apiError(
        'AlreadyExists',
        `namespace "${name}" already exists and does not belong to a Project; choose another Project name`,
        {},
        {
          name,
          group: objects.apiGroup,
          kind: PROJECT.plural,
        },
      );
    }
  };

  const namespaceOf = (project: PlatformObject) => {
    const name = project.metadata.name!;
    return {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { [projectLabel]: name }, ownerReferences: [ownerReferenceTo(project)] },
    };
  };

  return {
    ...plain,
    async create(location, object, options) {
      if (object.metadata.name) await refuseForeignNamespace(object.metadata.name);
      const created = await plain.create(location, object, options);
      const project = created.body;
      const name = project.metadata.name!;
      // A dry run asks the cluster whether the namespace could be created too, and changes nothing.
      if (options.has('dryRun')) {
        await objects.send({
          method: 'POST',
          path: objects.corePath('namespaces'),
          body: namespaceOf(project),
          query: dryRunQuery(true),
        });
        return created;
      }
      const namespacePath = objects.corePath('namespaces', { name });
      let namespaceCreated = false;
      try {
        await objects.send({ method: 'POST', path: objects.corePath('namespaces'), body: namespaceOf(project) });
        namespaceCreated = true;
        if (secretsAccess) await bindProjectSecrets(objects, secretsAccess, name);
      } catch (error) {
        // Without its namespace, or without the access its VariableSets' Secrets need, the Project
        // is useless: take back what was created (never a namespace that was there before), then report why.
        if (namespaceCreated) await objects.deleteIfPresent(namespacePath).catch(() => undefined);
        await objects.deleteIfPresent(objects.platformPath(PROJECT, { name })).catch(() => undefined);
        throw error;
      }
      const status = { namespace: name, phase: 'Active', observedGeneration: project.metadata.generation };
      const withStatus = await objects.send<PlatformObject>({
        method: 'PATCH',
        path: objects.platformPath(PROJECT, { name, subresource: 'status' }),
        body: { status },
        contentType: 'application/merge-patch+json',
      });
      return { ...created, body: withStatus.body };
    },
    // A Project applied into existence gets its namespace like a created one; the apply then records its fields.
    async apply(location, configuration, options) {
      if (!(await objects.find(objects.platformPath(PROJECT, location)))) {
        const creation = new URLSearchParams(options);
        creation.delete('force');
        await this.create(location, configuration, creation);
      }
      return plain.apply(location, configuration, options);
    },
    async delete(location, options) {
      refuseOrphaning(options, PROJECT.plural, 'namespace');
      const deleted = await plain.delete(location, options);
      const namespacePath = objects.corePath('namespaces', { name: location.name });
      const namespace = await objects.find<PlatformObject>(namespacePath);
      // The namespace follows the Project's delete, as a dry run when that was one.
      if (namespace && isOwnedBy(namespace, deleted.body.metadata.uid))
        await objects.deleteIfPresent(namespacePath, dryRunQuery(isDeleteDryRun(options)));
      return deleted;
    },
  };
}
