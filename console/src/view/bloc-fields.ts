import type { Session } from "../session.js";
import { isAdmin, mayOn } from "../api.js";
import type { Bloc, FieldType } from "../../../src/client/types.js";

/** A field as the forms need it; `type` is null when the token cannot learn it. */
export interface FieldInfo {
  readonly slug: string;
  readonly name: string;
  readonly type: FieldType | null;
  readonly options: readonly string[] | null;
  readonly required: boolean;
  readonly maxLength: number | null;
  readonly pattern: string | null;
  readonly format: string | null;
}

export interface BlocFields {
  readonly fields: readonly FieldInfo[];
  /** The admin view of the bloc (types, rules, module), when the token is an admin's. */
  readonly bloc: Bloc | null;
  /** false for a token that may add but not read: it cannot learn the fields' names, only type their slugs. */
  readonly named: boolean;
}

/**
 * A bloc's fields. The admin API gives their types and rules; a member's token can only
 * learn their slugs and names, from get-data's `fieldNames`, and only with `read`: the
 * public API has no endpoint that describes a bloc's fields. So members get text boxes,
 * and the service's validation messages tell them what a field accepts; a token that may
 * only add names the fields it fills by their slugs.
 */
export async function loadFields(session: Session, blocId: string): Promise<BlocFields> {
  if (isAdmin(session.me)) {
    const bloc = await session.client.admin.getBloc(blocId);
    return { bloc, fields: bloc.fields, named: true };
  }
  // get-data is the only way a member learns the fields, and it needs `read` (a scanner's token may only add).
  if (!mayOn(session.me, blocId, "read")) return { bloc: null, fields: [], named: false };
  const page = await session.client.getData({ blocId, resultLimit: 1 });
  const fields = Object.entries(page.fieldNames).map(([slug, name]) => ({
    slug, name, type: null, options: null, required: false, maxLength: null, pattern: null, format: null,
  }));
  return { bloc: null, fields, named: true };
}

/** The field a refusal is about: messages start with "<slug> (<name>)" or name "<parameter>.<slug>". */
export function fieldOfMessage(text: string, fields: readonly Pick<FieldInfo, "slug">[]): string | undefined {
  for (const { slug } of fields) {
    const escaped = slug.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (new RegExp(`^${escaped} \\(|\\.${escaped}\\b|"${escaped}"|part ${escaped}\\b`).test(text)) return slug;
  }
  return undefined;
}
