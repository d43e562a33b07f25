// The shapes of a Project's approval windows and freeze (issue 45 item 3, docs/resources.md "Windows,
// freezes and overrides"), as the CRD declares them: the server evaluates them
// (shared/domain/approvals/windows.ts), the console shows them. Browser-safe: types only.

/** One window of `spec.approvalPolicy.windows[]`: a cron schedule with a duration and a time zone, or a range. */
export interface ApprovalWindow {
  name: string;
  kind: 'allow' | 'deny';
  /** 5-field cron: when the window opens, in `timeZone`; it stays open for `duration`. */
  schedule?: string;
  /** Go duration (`2h`, `30m`), WINDOW_DURATION_BOUNDS. */
  duration?: string;
  /** IANA zone of the schedule; UTC when absent. */
  timeZone?: string;
  /** RFC 3339 range instead of a schedule: open from `start` (included) to `end` (excluded). */
  start?: string;
  end?: string;
  /** Which Rollouts (their promotions) and which Workspaces (their applies) the window governs; `*` is any. */
  appliesTo: { rollouts?: string[]; applies?: string[] };
}

/** `spec.approvalPolicy.freeze`: "stop the line". */
export interface Freeze {
  active: boolean;
  reason?: string;
  since?: string;
}
