// Placeholder until the run-log viewer (branch runlog) is merged: that branch replaces this file.
export const RunLogView = (_props: { streamUrl: string; token: string; onUnauthorised: (reason: string) => void }) =>
  null;
