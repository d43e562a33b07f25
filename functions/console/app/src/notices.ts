// What the page the user lands on says about what they just did on the one before ("Deleted Workspace
// network."): kept in memory for the next page only, never in storage.
let pending: string | undefined;

export function leaveNotice(text: string): void {
  pending = text;
}

/** The notice left for this page, forgetting it. */
export function takeNotice(): string | undefined {
  const text = pending;
  pending = undefined;
  return text;
}
