// What changed between two texts, line by line (the YAML of two versions of an object): the lines
// both keep, and those only the old or only the new one has, in order. A longest common
// subsequence after the common head and tail are set aside, which is all an edit of one object
// usually leaves; past a bound on the work, the middles are shown as removed then added.

export interface DiffLine {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

/** The largest middle part (old lines × new lines) compared line by line; larger ones are shown whole. */
const MAX_CELLS = 4_000_000;

export function lineDiff(before: string, after: string): DiffLine[] {
  const old = before.split('\n');
  const now = after.split('\n');
  let head = 0;
  while (head < old.length && head < now.length && old[head] === now[head]) head++;
  let tail = 0;
  while (
    tail < old.length - head &&
    tail < now.length - head &&
    old[old.length - 1 - tail] === now[now.length - 1 - tail]
  )
    tail++;
  const oldMiddle = old.slice(head, old.length - tail);
  const newMiddle = now.slice(head, now.length - tail);
  const same = (text: string): DiffLine => ({ kind: 'same', text });
  return [
    ...old.slice(0, head).map(same),
    ...middleDiff(oldMiddle, newMiddle),
    ...old.slice(old.length - tail).map(same),
  ];
}

function middleDiff(old: string[], now: string[]): DiffLine[] {
  const removed = (text: string): DiffLine => ({ kind: 'removed', text });
  const added = (text: string): DiffLine => ({ kind: 'added', text });
  if (old.length * now.length > MAX_CELLS || old.length === 0 || now.length === 0)
    return [...old.map(removed), ...now.map(added)];
  // common[i][j]: the longest common subsequence of old[i..] and now[j..].
  const width = now.length + 1;
  const common = new Uint32Array((old.length + 1) * width);
  for (let i = old.length - 1; i >= 0; i--)
    for (let j = now.length - 1; j >= 0; j--)
      common[i * width + j] =
        old[i] === now[j]
          ? common[(i + 1) * width + j + 1]! + 1
          : Math.max(common[(i + 1) * width + j]!, common[i * width + j + 1]!);
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < old.length && j < now.length) {
    if (old[i] === now[j]) {
      lines.push({ kind: 'same', text: old[i]! });
      i++;
      j++;
    } else if (common[(i + 1) * width + j]! >= common[i * width + j + 1]!) lines.push(removed(old[i++]!));
    else lines.push(added(now[j++]!));
  }
  return [...lines, ...old.slice(i).map(removed), ...now.slice(j).map(added)];
}
