// The markdown tables of scripts/bench-faults.mjs.

/** The figures as markdown tables: counts per scenario. */
export function printTables(results) {
  const { scenarios } = results;
  const out = (text = "") => process.stdout.write(`${text}\n`);
  const codes = (tallied) =>
    Object.entries(tallied)
      .map(([code, n]) => `${code}: ${n}`)
      .join(", ");
  out(`\nFault figures, seed ${results.seed}, ${results.minutes} min\n`);
  const { index } = scenarios;
  if (index) {
    out(
      `kill -9 while indexing (cold index ${(index.coldIndexMs / 1000).toFixed(1)} s, ${index.reference.indexed} files, ${index.reference.chunks} chunks)\n`,
    );
    out(
      "| trials | killed in (phase: trials) | database present | integrity ok | index agrees with manifest | following run failed | chains completed | equal to a complete index |",
    );
    out("| --- | --- | --- | --- | --- | --- | --- | --- |");
    out(
      `| ${index.trials} | ${codes(index.phases)} | ${index.withDatabase} | ${index.integrityOk} / ${index.withDatabase} | ${index.consistent} / ${index.withDatabase} | ${index.followingRunFailed} | ${index.chains} | ${index.chainsEqualToReference} / ${index.chains} |\n`,
    );
  }
  const agents = ["stream", "tool", "evict"].filter((kind) => scenarios[kind]);
  if (agents.length > 0) {
    out("kill -9 during an agent turn (`sylk ask`, then `sylk ask --continue`)\n");
    out(
      "| during | trials | killed | killed after (last event: trials) | integrity ok | index + history agree | turns printed | lost | duplicated | gaps | counter off | orphan entries | calls without result | `--continue` ok | `--continue` exit codes | refused by the API | after `--continue`: lost / dup / gaps / unanswered |",
    );
    out("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for (const kind of agents) {
      const s = scenarios[kind];
      const name = {
        stream: "streaming",
        tool: "a tool (`sleep 1`)",
        evict: `eviction (${s.windowTokens ? `${Math.round(s.windowTokens / 1_000)}k` : "small"} window)`,
      }[kind];
      out(
        `| ${name} | ${s.trials} | ${s.killed} | ${codes(s.killedAfter)} | ${s.integrityOk} | ${s.consistent} | ${s.turnsPrinted} | ${s.turnsLost} | ${s.turnsDuplicated} | ${s.turnGaps} | ${s.turnCounterOff} | ${s.orphanEntries} | ${s.unansweredCalls} | ${s.continueOk} | ${codes(s.continueExitCodes)} | ${s.continueRefusedByApi} | ${s.afterContinue.turnsLost} / ${s.afterContinue.turnsDuplicated} / ${s.afterContinue.turnGaps} / ${s.afterContinue.unansweredCalls} |`,
      );
    }
    out();
  }
  const { model } = scenarios;
  if (model) {
    out(`model faults (timeout ${model.timeoutMs} ms, ${model.maxAttempts} attempts per call)\n`);
    out("| fault | when | runs | recovered | exit codes | turn recorded | stack traces | retries | median run | message |");
    out("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for (const row of model.rows) {
      const honoured = row.retryAfterHonoured !== undefined ? ` (retry-after honoured in ${row.retryAfterHonoured})` : "";
      out(
        `| ${row.fault} | ${row.mode} | ${row.runs} | ${row.recovered} | ${codes(row.exitCodes)} | ${row.recorded} | ${row.stackTraces} | ${row.retries}${honoured} | ${(row.medianMs / 1000).toFixed(1)} s | ${row.message ?? ""} |`,
      );
    }
    out();
  }
  const { disk } = scenarios;
  if (disk) {
    if (disk.skipped) out(`full disk: skipped (${disk.skipped})\n`);
    else {
      out(`full disk (SYLK_HOME on a ${disk.sizeMb} MB tmpfs, a small project indexed first)\n`);
      out(
        "| runs | large index: exit codes | says the disk is full, no stack trace | stack traces | on the full disk, `sylk search` in the small project: exit codes / says the disk is full / found | space freed: databases intact | large index agrees with manifest | small index fresh | small index searchable |",
      );
      out("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
      out(
        `| ${disk.runs} | ${codes(disk.largeExitCodes)} | ${disk.largeClear} | ${disk.largeStackTraces} | ${codes(disk.searchOnFullDisk.exitCodes)} / ${disk.searchOnFullDisk.diskFullSaid} / ${disk.searchOnFullDisk.found} | ${disk.integrityOk} / ${disk.databases} | ${disk.largeConsistent} | ${disk.smallFresh} | ${disk.smallSearchOk} |\n`,
      );
      out(
        `Messages: large index "${disk.message}"; search on the full disk "${disk.searchOnFullDisk.message}"; \`sylk ask --provider none\` on the full disk "${disk.askOnFullDisk.message}".\n`,
      );
    }
  }
}
