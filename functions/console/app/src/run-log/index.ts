// The console's run-log viewer (issue 24, item 4): see README.md in this folder.
export { RunLogView, type RunLogViewProps } from './run-log-view.tsx';
