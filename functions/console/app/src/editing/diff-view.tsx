// Two versions of an object side by side in one column: kept lines plain, removed lines marked `-`
// and struck, added lines marked `+` (the marks are text, so they read out and print without colour).
import { type DiffLine, lineDiff } from './line-diff.ts';

export function DiffView({ before, after, label }: { before: string; after: string; label: string }) {
  const lines: DiffLine[] = lineDiff(before.trimEnd(), after.trimEnd());
  return (
    <section aria-label={label}>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box is reached by the keyboard to scroll it */}
      <pre class="diff" tabIndex={0}>
        {lines.map((line, index) => {
          const mark = line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '- ' : '  ';
          const text = `${mark}${line.text}`;
          return line.kind === 'added' ? (
            <ins key={index}>{text}</ins>
          ) : line.kind === 'removed' ? (
            <del key={index}>{text}</del>
          ) : (
            <span key={index}>{text}</span>
          );
        })}
      </pre>
    </section>
  );
}
