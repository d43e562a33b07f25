// The console's run-log viewer (issue 24, item 4): docs/console.md, "Run log".
export { RunLogView, type RunLogViewProps } from './run-log-view.tsx';
