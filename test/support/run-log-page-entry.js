// The test page of run-log-view.test.ts (built by run-log-page.ts): RunLogView with the stream URL
// and token of `location.hash`; the reasons it gives onUnauthorized are kept for the test to read.
import { h, render } from 'preact';
import { RunLogView } from '../../functions/console/app/src/run-log/index.ts';

const parameters = new URLSearchParams(location.hash.slice(1));
window.unauthorizedReasons = [];
render(
  h(RunLogView, {
    streamUrl: parameters.get('stream'),
    token: parameters.get('token'),
    onUnauthorized: (reason) => window.unauthorizedReasons.push(reason),
  }),
  document.getElementById('app'),
);
