import { InvalidInputError } from "./errors.js";
import type { Bloc, MatchCondition, Order, RecordCursor, RecordFilter } from "./model.js";
import type { Context } from "./context.js";
import type { DateWindow } from "./dates.js";
import type { ProjectedRow, RowColumn } from "./ports/store.js";
import { requireAccess, type Principal } from "./access.js";
import { toStoredValue } from "./values.js";
import { listVisibleRows } from "./record-queries.js";

export interface ReportColumn extends RowColumn {
  readonly header: string;
  /** The column holds file references, which a spreadsheet shows as links. */
  readonly file: boolean;
}

/** Report-only columns around the bloc's fields, in report order. */
const LEADING: readonly ReportColumn[] = [
  { key: "created_at", source: "created_at", header: "Created At", file: false },
  { key: "user_id", source: "user_id", header: "User ID", file: false },
];
const TRAILING: readonly ReportColumn[] = [
  { key: "time_stamp", source: "time_stamp", header: "Time", file: false },
  { key: "date_stamp", source: "date_stamp", header: "Date", file: false },
];

/**
 * Rows go to report writers in batches of at most this many rows and this many bytes
 * (a row longer than that goes alone), which bounds a report's memory whatever the
 * records hold.
 */
export const BATCH = 1000;
export const BATCH_BYTES = 8 * 1024 * 1024;
/** Values one filterDataToQuery list may hold. */
export const MAX_FILTER_VALUES = 10_000;

export interface ReportInput {
  readonly blocId: string;
  /** "all", or the chosen keys (field slugs or report columns). */
  readonly fields: "all" | readonly string[];
  readonly window: DateWindow;
  /** Field slug → accepted values; an empty list accepts everything. */
  readonly filter: Readonly<Record<string, readonly unknown[]>>;
  readonly order: Order;
  /** Only this page when given; otherwise every matching record. */
  readonly page?: { readonly number: number; readonly size: number } | undefined;
}

export interface Report {
  readonly bloc: Bloc;
  readonly columns: readonly ReportColumn[];
  /**
   * The rows in batches (one await per batch, not per row), each row the text of a
   * JSON object keyed by column key, in column order.
   */
  readonly rows: AsyncIterable<readonly string[]>;
}

export function columnsOf(bloc: Bloc, fields: "all" | readonly string[]): ReportColumn[] {
  const all: ReportColumn[] = [
    ...LEADING,
    ...bloc.fields.map((f) => ({ key: f.slug, source: { field: f.slug }, header: f.name, file: f.type === "file" })),
    ...TRAILING,
  ];
  if (fields === "all") return all;
  for (const key of fields) {
    if (!all.some((c) => c.key === key)) {
      throw new InvalidInputError(`fieldsToReport names "${key}", which is not a field of this bloc`);
    }
  }
  // Columns keep the report's canonical order whatever order the request listed them in.
  return all.filter((c) => fields.includes(c.key));
}

function matchConditions(bloc: Bloc, filter: Readonly<Record<string, readonly unknown[]>>): MatchCondition[] {
  return Object.entries(filter).map(([slug, values]) => {
    if (!bloc.fields.some((f) => f.slug === slug)) {
      throw new InvalidInputError(`filterDataToQuery names "${slug}", which is not a field of this bloc`);
    }
    if (values.length > MAX_FILTER_VALUES) {
      throw new InvalidInputError(`filterDataToQuery.${slug} lists ${values.length} values; at most ${MAX_FILTER_VALUES} are accepted`);
    }
    return { key: slug, values: values.map((v) => toStoredValue(`filterDataToQuery.${slug}`, v)) };
  });
}

/** Where the next batch starts, and how many rows are left to read (Infinity: all). */
interface Position {
  readonly offset: number;
  readonly after: RecordCursor | undefined;
  readonly left: number;
}

function nextBatch(ctx: Context, filter: RecordFilter, order: Order, columns: readonly ReportColumn[], at: Position): Promise<ProjectedRow[]> {
  return listVisibleRows(ctx.store, filter, {
    order, limit: Math.min(BATCH, at.left), offset: at.offset, after: at.after, maxBytes: BATCH_BYTES,
  }, columns);
}

/**
 * The rows from `first` (already read) on, batch after batch, until `left` rows were given
 * or none are left. The next batch is asked for before the current one is handed on, so an
 * engine that answers over the network (PostgreSQL) reads while the writer writes; at most
 * two batches are held.
 */
async function* rowsFrom(
  ctx: Context, filter: RecordFilter, order: Order, columns: readonly ReportColumn[], first: readonly ProjectedRow[], left: number,
): AsyncGenerator<readonly string[]> {
  let batch = first;
  while (batch.length > 0) {
    left -= batch.length;
    const last = batch[batch.length - 1]!;
    const next = left > 0
      ? nextBatch(ctx, filter, order, columns, { offset: 0, after: { createdAt: last.createdAt, id: last.id }, left })
      : undefined;
    // A reader that leaves stops the generator before `next` is awaited: its failure is then nobody's.
    next?.catch(() => undefined);
    ctx.telemetry.reportRows(batch.length);
    yield batch.map((row) => row.json);
    if (!next) return;
    batch = await next;
  }
}

export async function buildReport(ctx: Context, principal: Principal, input: ReportInput): Promise<Report> {
  const { bloc, visibility } = await requireAccess(ctx, principal, input.blocId, "read");
  const columns = columnsOf(bloc, input.fields);
  const filter: RecordFilter = {
    blocId: bloc.id, visibility, ...input.window, match: matchConditions(bloc, input.filter),
  };
  const start: Position = input.page
    ? { offset: (input.page.number - 1) * input.page.size, after: undefined, left: input.page.size }
    : { offset: 0, after: undefined, left: Infinity };
  // The first batch is read now, before any header is sent: a failure then is an error answer, not a cut-off body.
  const first = await nextBatch(ctx, filter, input.order, columns, start);
  return { bloc, columns, rows: rowsFrom(ctx, filter, input.order, columns, first, start.left) };
}
