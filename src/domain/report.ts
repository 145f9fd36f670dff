import { InvalidInputError } from "./errors.js";
import type { Bloc, MatchCondition, Order, RecordCursor, RecordFilter } from "./model.js";
import type { Context } from "./context.js";
import type { DateWindow } from "./dates.js";
import type { RowColumn } from "../store/store.js";
import { requireAccess, type Principal } from "./access.js";
import { toStoredValue } from "./values.js";
import { listRows } from "./record-queries.js";

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

/** Rows streamed to report writers in batches of this many; bounds memory per request. */
const BATCH = 1000;

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

function columnsOf(bloc: Bloc, fields: "all" | readonly string[]): ReportColumn[] {
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
    return { key: slug, values: values.map((v) => toStoredValue(`filterDataToQuery.${slug}`, v)) };
  });
}

async function* batches(
  ctx: Context, filter: RecordFilter, order: Order, columns: readonly ReportColumn[],
): AsyncGenerator<readonly string[]> {
  let after: RecordCursor | undefined;
  for (;;) {
    const batch = await listRows(ctx.store, filter, { order, limit: BATCH, offset: 0, after }, columns);
    yield batch.map((row) => row.json);
    const last = batch[batch.length - 1];
    if (batch.length < BATCH || !last) return;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

async function* onePage(
  ctx: Context, filter: RecordFilter, order: Order, page: { number: number; size: number }, columns: readonly ReportColumn[],
): AsyncGenerator<readonly string[]> {
  const rows = await listRows(ctx.store, filter, { order, limit: page.size, offset: (page.number - 1) * page.size }, columns);
  yield rows.map((row) => row.json);
}

export async function buildReport(ctx: Context, principal: Principal, input: ReportInput): Promise<Report> {
  const { bloc, visibility } = await requireAccess(ctx, principal, input.blocId, "read");
  const columns = columnsOf(bloc, input.fields);
  const filter: RecordFilter = {
    blocId: bloc.id, visibility, ...input.window, match: matchConditions(bloc, input.filter),
  };
  const rows = input.page ? onePage(ctx, filter, input.order, input.page, columns) : batches(ctx, filter, input.order, columns);
  return { bloc, columns, rows };
}
