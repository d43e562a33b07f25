// The flags every command takes, named as kubectl names them (its genericclioptions and -o).
import type { FlagSpec } from './command-line.ts';

export const GLOBAL_FLAGS: readonly FlagSpec[] = [
  {
    name: 'namespace',
    short: 'n',
    value: 'PROJECT',
    description: "the Project (its namespace); default: the context's namespace",
  },
  { name: 'context', value: 'NAME', description: 'the kubeconfig context to use' },
  { name: 'kubeconfig', value: 'FILE', description: 'the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' },
  {
    name: 'output',
    short: 'o',
    value: 'FORMAT',
    description: 'json, yaml, wide or name, where the command prints them',
  },
  {
    name: 'no-color',
    description: "strip colours from a run's log (they are stripped anyway when not writing to a terminal)",
  },
  { name: 'help', short: 'h', description: 'help for the command' },
];
