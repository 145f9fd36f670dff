import { BlocAdmin } from "./admin.js";
import { FetchTransport } from "./fetch-transport.js";
import { addDataFields, CONTENT_TYPES, dispositionName, deleteRequest, getDataResult, reportBody, safeName, timelinePath, updateRequest } from "./requests.js";
import type {
  BlocFields, AddDataInput, DataRecord, AddDataResult, GetDataQuery, GetDataResult, Me, ReportFormat, ReportQuery, ReportRow, UpdateInput, DeleteInput,
  TimelineQuery, TimelineResult,
} from "./types.js";

export interface FetchBlocClientOptions {
  /** The service's base URL; in a page served by the service, its origin. */
  readonly url: string;
  readonly token: string;
  /** A fetch of your own (tests, instrumentation); the global one otherwise. */
  readonly fetch?: (input: URL, init: RequestInit) => Promise<Response>;
}

/** A downloaded file: the bytes and the name the service gave them. */
export interface Download {
  readonly blob: Blob;
  readonly filename: string;
  readonly contentType: string;
}

/**
 * The typed client over fetch, for browsers: the same parameters and answers as
 * BlocClient (they share requests.ts and types.ts) and the same admin API, with what a
 * page needs instead of files on disk — Blobs for downloads and FormData for uploads.
 * The two read endpoints go as POST with the spec's body (fetch sends no GET body).
 */
export class FetchBlocClient {
  readonly admin: BlocAdmin;
  /** For endpoints the typed methods do not cover yet. */
  readonly transport: FetchTransport;

  constructor(options: FetchBlocClientOptions) {
    this.transport = new FetchTransport(options.url, options.token, options.fetch);
    this.admin = new BlocAdmin(this.transport);
  }

  /** What the token may do: its user, roles, scope and the blocs it may use. */
  /** What a form needs to add to a bloc (its fields, their rules, its module) and what this token may do there. */
  blocFields(blocId: string | number): Promise<BlocFields> {
    return this.transport.json<BlocFields>({ method: "GET", path: `/api/blocs/${encodeURIComponent(String(blocId))}/fields` }, [200]);
  }

  me(): Promise<Me> {
    return this.transport.json<Me>({ method: "GET", path: "/api/me" }, [200]);
  }

  /** Adds one record; with `files` (field slug → Blob or File) it is sent as multipart/form-data. */
  addData(input: AddDataInput, files?: Readonly<Record<string, Blob>>): Promise<AddDataResult> {
    const headers: Record<string, string> = input.idempotencyKey === undefined ? {} : { "idempotency-key": input.idempotencyKey };
    const fields = addDataFields(input);
    if (!files || Object.keys(files).length === 0) {
      return this.transport.json({ method: "POST", path: "/api/add-data", json: fields, headers }, [200]);
    }
    // Text parts first: the service needs scanStationID before any file part.
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    for (const [slug, file] of Object.entries(files)) form.append(slug, file, file instanceof File ? file.name : slug);
    return this.transport.json({ method: "POST", path: "/api/add-data", form, headers }, [200]);
  }

  async getData<F extends string = string>(query: GetDataQuery): Promise<GetDataResult<F>> {
    const answer = await this.transport.json<{ data: Record<string, unknown> }>({ method: "POST", path: "/api/get-data", json: query }, [200]);
    return getDataResult<F>(answer.data);
  }

  async getDataReport(query: ReportQuery): Promise<ReportRow[]> {
    const answer = await this.transport.json<{ data: ReportRow[] }>({ method: "POST", path: "/api/get-data-report", json: reportBody(query) }, [200]);
    return answer.data;
  }

  /** Records this token can see per hour or day of a window, counted as get-data counts them. */
  timeline(query: TimelineQuery): Promise<TimelineResult> {
    return this.transport.json<TimelineResult>({ method: "GET", path: timelinePath(query) }, [200]);
  }

  /** One record this token can see, by its ID, as get-data shows it; 404 (BlocApiError) when it is hidden, deleted or never made. */
  async record(blocId: string | number, recordId: number | string): Promise<DataRecord> {
    const path = `/api/blocs/${encodeURIComponent(String(blocId))}/records/${encodeURIComponent(String(recordId))}`;
    return (await this.transport.json<{ record: DataRecord }>({ method: "GET", path }, [200])).record;
  }

  /**
   * Names of the users `ids` who created records this token can see in the bloc (user ID →
   * name); IDs that created none it can see are left out. At most BLOC_MAX_RESULT_LIMIT IDs.
   */
  async userNames(blocId: string | number, ids: readonly string[]): Promise<Record<string, string>> {
    const path = `/api/blocs/${encodeURIComponent(String(blocId))}/user-names?ids=${encodeURIComponent(ids.join(","))}`;
    return (await this.transport.json<{ names: Record<string, string> }>({ method: "GET", path }, [200])).names;
  }

  /** A JSON report's answer unread, to be streamed (counting rows without holding them). */
  reportResponse(query: ReportQuery, signal?: AbortSignal): Promise<Response> {
    return this.transport.ok({ method: "POST", path: "/api/get-data-report", json: reportBody(query), ...(signal ? { signal } : {}) });
  }

  /** A report as an .xlsx workbook (the spec's `blob`) or CSV. */
  async downloadDataReport(query: ReportQuery, format: ReportFormat): Promise<Download> {
    const response = await this.transport.ok({
      method: "POST", path: "/api/get-data-report", json: reportBody(query, format === "xlsx" ? "blob" : "csv"),
    });
    return {
      blob: await response.blob(),
      contentType: response.headers.get("content-type") ?? CONTENT_TYPES[format],
      filename: safeName(dispositionName(response.headers.get("content-disposition")) ?? `report-${query.stationID}.${format}`),
    };
  }

  async updateRecordsByMatchingValues(input: UpdateInput): Promise<number[]> {
    return (await this.transport.json<{ updated_record_ids: number[] }>(updateRequest(input), [200])).updated_record_ids;
  }

  /** Deletes every record whose fields equal `searchItems` (an admin can restore them); the IDs deleted. */
  async deleteRecordsByMatchingValues(input: DeleteInput): Promise<number[]> {
    return (await this.transport.json<{ deleted_record_ids: number[] }>(deleteRequest(input), [200])).deleted_record_ids;
  }

  /** A file uploaded with a record (GET /api/files/:ref), if the token may read that record. */
  async downloadFile(ref: string): Promise<Download> {
    const response = await this.transport.ok({ method: "GET", path: `/api/files/${encodeURIComponent(ref)}` });
    return {
      blob: await response.blob(),
      contentType: response.headers.get("content-type") ?? "application/octet-stream",
      filename: safeName(dispositionName(response.headers.get("content-disposition")) ?? ref, "file"),
    };
  }

  /**
   * Whether `ref` names a file the token may download, asked with HEAD (no bytes sent).
   * Members cannot read a bloc's field types, so this is how a page tells a file
   * reference from text that looks like one.
   */
  async isFile(ref: string): Promise<boolean> {
    const response = await this.transport.send({ method: "HEAD", path: `/api/files/${encodeURIComponent(ref)}` });
    return response.status === 200;
  }
}
