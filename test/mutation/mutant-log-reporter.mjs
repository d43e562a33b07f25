// Stryker reporter: appends each mutant's result to reports/mutation/<scope>.mutants.jsonl as soon as it is
// tested. Stryker writes its own reports only at the end, so a run stopped early (a long scope on a shared
// machine) still tells which mutants were tested and which survived.
import { appendFileSync } from 'node:fs';
import { PluginKind, declareClassPlugin } from '@stryker-mutator/api/plugin';

class MutantLogReporter {
  onMutantTested(result) {
    const file = process.env.MUTANT_LOG_FILE;
    if (!file) return;
    const { fileName, location, mutatorName, replacement, status } = result;
    appendFileSync(
      file,
      `${JSON.stringify({ status, file: fileName, line: location.start.line, mutatorName, replacement })}\n`,
    );
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.Reporter, 'mutant-log', MutantLogReporter)];
