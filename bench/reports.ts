import { readConfig } from "../src/config.js";
import { openContext } from "../src/open-context.js";
import { BATCH, BATCH_BYTES, columnsOf } from "../src/domain/report.js";
import { listVisibleRows } from "../src/domain/record-queries.js";
import type { RecordCursor } from "../src/domain/model.js";

/**
 * The reference for the report figures: the engine alone yielding the rows a full
 * `fieldsToReport: "all"` report reads — the same projection (rows built as JSON in
 * SQL), the same keyset batches of ≤ 1,000 rows / 8 MiB, through the same read path —
 * in this process, with no HTTP and no writer. Reports are given as a ratio to it.
 */
export async function bareReadLoop(env: Record<string, string>, blocId: string): Promise<{ rows: number; rowsPerSecond: number; seconds: number }> {
  const ctx = await openContext(readConfig(env));
  try {
    const bloc = await ctx.store.blocs.findBloc(blocId);
    if (!bloc) throw new Error(`no bloc ${blocId}`);
    const columns = columnsOf(bloc, "all");
    const filter = { blocId, visibility: {} };
    // Untimed, as the server's connections are warm: a few batches prepare the statements.
    let after: RecordCursor | undefined;
    for (let i = 0; i < 5; i += 1) {
      const batch = await listVisibleRows(ctx.store, filter, { order: "oldest", limit: BATCH, offset: 0, after, maxBytes: BATCH_BYTES }, columns);
      const last = batch[batch.length - 1];
      if (last) after = { createdAt: last.createdAt, id: last.id };
    }
    after = undefined;
    const started = performance.now();
    let rows = 0;
    for (;;) {
      const batch = await listVisibleRows(ctx.store, filter, { order: "oldest", limit: BATCH, offset: 0, after, maxBytes: BATCH_BYTES }, columns);
      if (batch.length === 0) break;
      rows += batch.length;
      const last = batch[batch.length - 1]!;
      after = { createdAt: last.createdAt, id: last.id };
    }
    const seconds = (performance.now() - started) / 1000;
    return { rows, rowsPerSecond: rows / seconds, seconds };
  } finally {
    await ctx.store.close();
  }
}

export interface ReportRun { readonly rowsPerSecond: number; readonly firstByte: number; readonly rssGrowth: number; readonly seconds: number }

function median<T>(runs: readonly T[], by: (run: T) => number): T {
  return [...runs].sort((a, b) => by(a) - by(b))[Math.floor(runs.length / 2)]!;
}

/**
 * The bare read loop, the JSON report and the .xlsx report, in turn, `rounds` times; the
 * median of each. Interleaving gives each the same share of a machine that other work
 * also uses, so the ratios hold where the absolute figures move.
 */
export async function measureReports(
  rounds: number, bare: () => Promise<{ rowsPerSecond: number }>, report: (responseType: string) => Promise<ReportRun>,
): Promise<{ bare: number; bareRuns: number[]; json: ReportRun; xlsx: ReportRun }> {
  const bares: number[] = [];
  const jsons: ReportRun[] = [];
  const xlsxs: ReportRun[] = [];
  for (let i = 0; i < rounds; i += 1) {
    bares.push((await bare()).rowsPerSecond);
    jsons.push(await report("json"));
    xlsxs.push(await report("blob"));
  }
  // Peak memory is the worst round's, not the median's.
  const worst = (runs: readonly ReportRun[]): number => Math.max(...runs.map((r) => r.rssGrowth));
  const json = median(jsons, (r) => r.rowsPerSecond);
  const xlsx = median(xlsxs, (r) => r.rowsPerSecond);
  return {
    bare: median(bares, (r) => r), bareRuns: bares,
    json: { ...json, rssGrowth: worst(jsons) }, xlsx: { ...xlsx, rssGrowth: worst(xlsxs) },
  };
}
