import { isCanonicalTimestamp, type PageTokens } from '../../../base/database/page-tokens.ts';
import { isUuid } from './run-id.ts';

/** The position after the last run of a page: its `(createdAt, id)`, the keyset sort key. */
export interface ListPosition {
  createdAt: string;
  id: string;
}

/** The list a runs token was issued for, with its filters: a Project's (or one Workspace's) runs, or the controller's queue of a phase. */
export type RunListScope = readonly ['runs', string, string | null] | readonly ['unfinished-runs', string];

const POSITION_FIELDS = [isCanonicalTimestamp, isUuid];

/** The token naming `position` in the list of `scope`. */
export function encodeContinueToken(tokens: PageTokens, scope: RunListScope, position: ListPosition): string {
  return tokens.issue(scope, [position.createdAt, position.id]);
}

/** The position a token issued for `scope` names; anything else throws `InvalidContinueTokenError`. */
export function decodeContinueToken(tokens: PageTokens, scope: RunListScope, token: string): ListPosition {
  const [createdAt, id] = tokens.read(scope, token, POSITION_FIELDS);
  return { createdAt: createdAt!, id: id! };
}
