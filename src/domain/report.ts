import { InvalidInputError } from "./errors.js";
import type { Bloc, MatchCondition, Order, RecordCursor, RecordFilter, StoredRecord } from "./model.js";
import type { Context } from "./context.js";
import type { DateWindow } from "./dates.js";
import { requireAccess, type Principal } from "./access.js";
import { toStoredValue } from "./values.js";

export interface ReportColumn {
  readonly key: string;
  readonly header: string;
  /** The column holds file references, which a spreadsheet shows as links. */
  readonly file: boolean;
}

type ColumnSource = (record: StoredRecord) => string;

/** Report-only columns, in the order they appear around the bloc's fields. */
const LEADING: Record<string, { header: string; read: ColumnSource }> = {
  created_at: { header: "Created At", read: (r) => r.createdAt },
  user_id: { header: "User ID", read: (r) => r.userId },
};
const TRAILING: Record<string, { header: string; read: ColumnSource }> = {
  time_stamp: { header: "Time", read: (r) => r.createdAt.slice(11) },
  date_stamp: { header: "Date", read: (r) => r.createdAt.slice(0, 10) },
};

/** Records streamed to report writers in batches of this many; bounds memory per request. */
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
  /** Row values keyed by column key, in report order. */
  readonly rows: AsyncIterable<Record<string, string>>;
}

function columnsOf(bloc: Bloc, fields: "all" | readonly string[]): { column: ReportColumn; read: ColumnSource }[] {
  const all = [
    ...Object.entries(LEADING).map(([key, c]) => ({ column: { key, header: c.header, file: false }, read: c.read })),
    ...bloc.fields.map((f) => ({
      column: { key: f.slug, header: f.name, file: f.type === "file" },
      read: (r: StoredRecord) => r.values[f.slug] ?? "",
    })),
    ...Object.entries(TRAILING).map(([key, c]) => ({ column: { key, header: c.header, file: false }, read: c.read })),
  ];
  if (fields === "all") return all;
  for (const key of fields) {
    if (!all.some((c) => c.column.key === key)) {
      throw new InvalidInputError(`fieldsToReport names "${key}", which is not a field of this bloc`);
    }
  }
  // Columns keep the report's canonical order whatever order the request listed them in.
  return all.filter((c) => fields.includes(c.column.key));
}

function matchConditions(bloc: Bloc, filter: Readonly<Record<string, readonly unknown[]>>): MatchCondition[] {
  return Object.entries(filter).map(([slug, values]) => {
    if (!bloc.fields.some((f) => f.slug === slug)) {
      throw new InvalidInputError(`filterDataToQuery names "${slug}", which is not a field of this bloc`);
    }
    return { key: slug, values: values.map((v) => toStoredValue(`filterDataToQuery.${slug}`, v)) };
  });
}

async function* batches(ctx: Context, filter: RecordFilter, order: Order): AsyncGenerator<StoredRecord> {
  let cursor: RecordCursor | undefined;
  for (;;) {
    const batch = await ctx.store.listRecordsAfter(filter, order, cursor, BATCH);
    yield* batch;
    const last = batch[batch.length - 1];
    if (batch.length < BATCH || !last) return;
    cursor = { createdAt: last.createdAt, id: last.id };
  }
}

async function* onePage(
  ctx: Context, filter: RecordFilter, order: Order, page: { number: number; size: number },
): AsyncGenerator<StoredRecord> {
  yield* await ctx.store.listRecords(filter, { order, limit: page.size, offset: (page.number - 1) * page.size });
}

export async function buildReport(ctx: Context, principal: Principal, input: ReportInput): Promise<Report> {
  const { bloc, visibility } = await requireAccess(ctx, principal, input.blocId, "read");
  const columns = columnsOf(bloc, input.fields);
  const filter: RecordFilter = {
    blocId: bloc.id, visibility, ...input.window, match: matchConditions(bloc, input.filter),
  };
  const records = input.page ? onePage(ctx, filter, input.order, input.page) : batches(ctx, filter, input.order);
  async function* rows(): AsyncGenerator<Record<string, string>> {
    for await (const record of records) {
      const row: Record<string, string> = {};
      for (const c of columns) row[c.column.key] = c.read(record);
      yield row;
    }
  }
  return { bloc, columns: columns.map((c) => c.column), rows: rows() };
}
