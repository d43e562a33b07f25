// Go durations are read by the settings and by the contract's rules alike (a window's `duration`, which the console
// evaluates in the browser): one parser, kept with the browser-safe rules, named here for the settings.
export { formatDuration, parseGoDuration } from '../../contract/rules/go-duration.ts';
