// Which lines of a long log to put in the DOM: only those in view, plus some either side so that
// scrolling a little shows lines already rendered. Every line has the same height, so this is
// arithmetic, not measurement.

export interface WindowInput {
  /** How far the viewport is scrolled, in pixels. */
  scrollTop: number;
  viewportHeight: number;
  lineHeight: number;
  lineCount: number;
  /** Lines rendered beyond each edge of the view. */
  overscan: number;
}

/** The lines to render, as indexes: `first` included, `end` excluded. */
export function visibleWindow({ scrollTop, viewportHeight, lineHeight, lineCount, overscan }: WindowInput): {
  first: number;
  end: number;
} {
  const top = Math.floor(Math.max(0, scrollTop) / lineHeight);
  const shown = Math.ceil(Math.max(0, viewportHeight) / lineHeight) + 1;
  const first = Math.max(0, Math.min(top, lineCount) - overscan);
  const end = Math.min(lineCount, top + shown + overscan);
  return { first, end: Math.max(first, end) };
}

/** The scroll position that shows the last line at the bottom of the view. */
export function tailScrollTop(lineCount: number, lineHeight: number, viewportHeight: number): number {
  return Math.max(0, lineCount * lineHeight - viewportHeight);
}
