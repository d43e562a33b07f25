// A run's log, live: lines arrive through followRunLog (run-log-stream.ts), are added once per
// animation frame whatever their rate, and only the lines in view are in the DOM (a log of 100,000
// lines is a few dozen elements). The view follows the tail while it is scrolled to the bottom and
// stops when the reader scrolls up; "Jump to end" brings it back.
import './run-log.css';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { parseAnsi, presentation } from './ansi.ts';
import { followRunLog, type RunLogLine, type RunLogState } from './run-log-stream.ts';
import { tailScrollTop, visibleWindow } from './virtual-window.ts';

/** Every line's height in pixels: the stylesheet's `.run-log__line` height says the same. */
export const LINE_HEIGHT_PX = 20;
/** Lines rendered beyond each edge of the view, so a short scroll shows lines already there. */
const OVERSCAN_LINES = 40;

export interface RunLogViewProps {
  /** The API's run-log stream: `<api>/api/v1alpha1/run-logs/{project}/{run}`. */
  streamUrl: string;
  /** The bearer token, sent as `?access_token=` (EventSource cannot set headers). */
  token: string;
  /** Called with the API's reason when the token is refused (expired, key rotated, account disabled). */
  onUnauthorized: (reason: string) => void;
}

export function RunLogView({ streamUrl, token, onUnauthorized }: RunLogViewProps) {
  const lines = useRef<RunLogLine[]>([]);
  const [lineCount, setLineCount] = useState(0);
  const [state, setState] = useState<RunLogState>({ kind: 'connecting' });
  const [scrollTop, setScrollTop] = useState(0);
  const [viewportHeight, setViewportHeight] = useState(0);
  const [following, setFollowing] = useState(true);
  const viewport = useRef<HTMLDivElement>(null);
  // Where following last scrolled to: a scroll event at or below it is that scroll landing, not the reader.
  const autoScrolledTo = useRef(0);
  // The latest callback, without reopening the stream when the parent passes a new function.
  const unauthorized = useRef(onUnauthorized);
  unauthorized.current = onUnauthorized;

  useEffect(() => {
    lines.current = [];
    setLineCount(0);
    let pending: RunLogLine[] = [];
    let frame = 0;
    const flush = () => {
      cancelAnimationFrame(frame);
      frame = 0;
      for (const line of pending) lines.current.push(line);
      pending = [];
      setLineCount(lines.current.length);
    };
    const stop = followRunLog({
      streamUrl,
      token,
      onLine: (line) => {
        pending.push(line);
        if (frame === 0) frame = requestAnimationFrame(flush);
      },
      // The lines before a state change (the run's end) are shown with it, not a frame later.
      onState: (next) => {
        if (pending.length > 0) flush();
        setState(next);
      },
      onUnauthorized: (reason) => unauthorized.current(reason),
    });
    return () => {
      stop();
      cancelAnimationFrame(frame);
    };
  }, [streamUrl, token]);

  useEffect(() => {
    const element = viewport.current!;
    const observer = new ResizeObserver(() => setViewportHeight(element.clientHeight));
    observer.observe(element);
    setViewportHeight(element.clientHeight);
    return () => observer.disconnect();
  }, []);

  // While following, the view is at the tail: computed, so the right lines render before the scroll lands.
  const top = following ? tailScrollTop(lineCount, LINE_HEIGHT_PX, viewportHeight) : scrollTop;
  useLayoutEffect(() => {
    const element = viewport.current;
    if (!following || !element) return;
    element.scrollTop = element.scrollHeight;
    autoScrolledTo.current = element.scrollTop;
  }, [following, lineCount, viewportHeight]);

  const onScroll = () => {
    const element = viewport.current!;
    const atBottom = element.scrollTop + element.clientHeight >= element.scrollHeight - LINE_HEIGHT_PX / 2;
    setScrollTop(element.scrollTop);
    setFollowing((was) => atBottom || (was && element.scrollTop >= autoScrolledTo.current));
  };
  const jumpToEnd = () => {
    setFollowing(true);
    viewport.current?.focus();
  };

  const { first, end } = visibleWindow({
    scrollTop: top,
    viewportHeight,
    lineHeight: LINE_HEIGHT_PX,
    lineCount,
    overscan: OVERSCAN_LINES,
  });
  const shown = lines.current.slice(first, end);

  return (
    <section class="run-log" aria-label="Run log">
      <div class="run-log__toolbar">
        {/* The one live announcement: the stream's state (connected, resuming, the run's end), never the lines. */}
        <p class="run-log__status" role="status" data-state={state.kind}>
          {describe(state)}
        </p>
        <p class="run-log__count">{lineCount === 1 ? '1 line' : `${lineCount.toLocaleString('en')} lines`}</p>
        {!following && (
          <button type="button" class="run-log__jump" onClick={jumpToEnd}>
            Jump to end
          </button>
        )}
      </div>
      {/* role="log" names the region; aria-live is off because the virtualised rows come and go as
          the reader scrolls and would otherwise be read out by the thousand. */}
      <div
        ref={viewport}
        class="run-log__viewport"
        role="log"
        aria-label="Run log lines"
        aria-live="off"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard to scroll it (WCAG 2.1.1)
        tabIndex={0}
        onScroll={onScroll}
      >
        <div class="run-log__spacer" style={{ height: `${lineCount * LINE_HEIGHT_PX}px` }}>
          <div class="run-log__lines" style={{ transform: `translateY(${first * LINE_HEIGHT_PX}px)` }}>
            {shown.map((line) => (
              <div key={line.seq} class="run-log__line" data-seq={line.seq}>
                <span class="run-log__number" aria-hidden="true">
                  {line.seq}
                </span>
                <LineText text={line.text} />
              </div>
            ))}
          </div>
        </div>
      </div>
    </section>
  );
}

/** A line's text with its ANSI colours: text nodes only, so log text never becomes markup. */
function LineText({ text }: { text: string }) {
  return (
    <span class="run-log__text">
      {parseAnsi(text).map((segment, index) => {
        const { className, colour, backgroundColour } = presentation(segment.style);
        if (className === '' && colour === undefined && backgroundColour === undefined) return segment.text;
        const style: Record<string, string> = {};
        if (colour !== undefined) style.color = colour;
        if (backgroundColour !== undefined) style.backgroundColor = backgroundColour;
        return (
          <span key={index} class={className || undefined} style={style}>
            {segment.text}
          </span>
        );
      })}
    </span>
  );
}

function describe(state: RunLogState): string {
  switch (state.kind) {
    case 'connecting':
      return 'Connecting…';
    case 'streaming':
      return 'Live';
    case 'reconnecting':
      return `Reconnecting: ${state.detail}`;
    case 'ended':
      return `Run ended: ${state.phase}${state.message ? ` (${state.message})` : ''}`;
    case 'removed':
      return `Log removed: ${state.message}`;
    case 'unauthorized':
      return `Stopped: ${state.reason}`;
    case 'failed':
      return `Stopped: ${state.message}`;
  }
}
