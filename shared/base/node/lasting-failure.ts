/**
 * A failure that waiting does not cure and whose message says what to do (local state held by
 * another process, a package that is not installed). Answers and logs repeat its message, where
 * any other failure to open a dependency is summarised as "retry shortly". Local development's
 * services throw subclasses of it; the product names none of them.
 */
export class LastingFailure extends Error {}
