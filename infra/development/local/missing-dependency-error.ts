import { LastingFailure } from '../../../shared/base/node/lasting-failure.ts';

/** An optional package a local feature needs is not installed; says which and what to do instead. */
export class MissingDependencyError extends LastingFailure {
  constructor(packageName: string, neededFor: string, instead: string) {
    super(`${packageName} is not installed, and ${neededFor} needs it: ${instead}`);
    this.name = 'MissingDependencyError';
  }
}

/** Whether an import failed because the module (or a package it imports) is not installed. */
export function isModuleNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}
