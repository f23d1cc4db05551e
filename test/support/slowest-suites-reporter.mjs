// Prints the ten slowest suites after a run, so a contributor sees where `npm test`'s minutes go
// (issue 33: the suite must stay within its wall-time bar as it grows).
export default class SlowestSuitesReporter {
  onRunComplete(_contexts, results) {
    const suites = results.testResults
      .map((r) => ({ path: r.testFilePath.replace(`${process.cwd()}/`, ''), ms: r.perfStats.end - r.perfStats.start }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 10);
    if (suites.length === 0) {
      return;
    }
    const wall = ((Date.now() - results.startTime) / 1000).toFixed(0);
    const lines = suites.map((s) => `  ${(s.ms / 1000).toFixed(1).padStart(6)} s  ${s.path}`);
    process.stderr.write(`\nThe ten slowest suites (the run took ${wall} s of wall time):\n${lines.join('\n')}\n`);
  }
}
