// What the kube-controller-manager does for namespaces, done synchronously: every namespace gets a `default`
// ServiceAccount, and a deleted namespace loses its contents before it goes away.
import type { KubeObject } from './kube-object.ts';
import type { ResourceRegistry } from './resource-registry.ts';
import type { ResourceStore } from '../storage/resource-store.ts';

/** Starts following namespace changes; returns the unsubscribe function. */
export function runNamespaceController(store: ResourceStore, registry: ResourceRegistry): () => void {
  const namespaces = registry.get('', 'namespaces')!;
  const serviceAccounts = registry.get('', 'serviceaccounts')!;
  const namespacedTypes = () => registry.all().filter((type) => type.stored && type.namespaced);

  const finalizeWhenEmpty = (namespace: KubeObject): void => {
    const name = namespace.metadata.name!;
    if (namespacedTypes().some((type) => store.list(type, name).length > 0)) return;
    store.update(namespaces, { ...namespace, spec: { finalizers: [] } }, 'finalize');
  };

  return store.subscribe((event) => {
    const { object } = event;
    if (event.resourceType === namespaces) {
      if (event.type === 'ADDED')
        store.create(serviceAccounts, { metadata: { name: 'default', namespace: object.metadata.name } });
      if (event.type === 'MODIFIED' && object.metadata.deletionTimestamp) {
        const name = object.metadata.name!;
        for (const type of namespacedTypes()) {
          for (const item of store.list(type, name)) store.delete(type, name, item.metadata.name!);
        }
        const current = store.find(namespaces, undefined, name);
        if (current) finalizeWhenEmpty(current);
      }
    } else if (event.type === 'DELETED' && event.resourceType.namespaced) {
      // Contents held back by their own finalizers release a terminating namespace when they finally go.
      const namespace = store.find(namespaces, undefined, object.metadata.namespace!);
      if (namespace?.metadata.deletionTimestamp) finalizeWhenEmpty(namespace);
    }
  });
}
