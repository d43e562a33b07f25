import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

/** More than V8 watches before it fixes the size of a constructor's objects (seven). */
const SHAPE_SAMPLES = 8;

let settled = false;

/**
 * Fixes the size of node:http's ServerResponse objects while nothing can disturb it.
 *
 * V8 sizes the objects a constructor makes by watching the first seven it makes (in-object slack
 * tracking) through the shapes they took. If a full garbage collection runs after the sixth, while
 * those first responses are already gone (a server answers a few probes, then idles, or a benchmark
 * measures its idle memory), the shapes are forgotten: the seventh response and every later one is
 * sized with no room for properties and becomes a dictionary, about 3 KB more for each, held as long
 * as a run-log stream stays open, and slower to use on every request. Making the first eight here,
 * at once and alive together, sizes them from the shapes a real response has.
 * Idempotent: the first server of the process does it.
 */
export function settleResponseShape(): void {
  if (settled) return;
  settled = true;
  const request = new IncomingMessage(new Socket());
  const samples: ServerResponse[] = [];
  for (let index = 0; index < SHAPE_SAMPLES; index++) samples.push(new ServerResponse(request));
}
