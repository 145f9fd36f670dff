import { Type, type TSchema } from "@sinclair/typebox";
import { FIELD_TYPES, PERMISSIONS, RESTRICTION_MODES, SCAN_LIMIT_PERIODS } from "../../domain/model.js";
import { errorResponses } from "../error-schemas.js";
import type { Endpoint } from "../error-shapes.js";

/** Response schemas of the admin API and the other non-spec routes (domain/model.ts's shapes, on the wire). */

const Nullable = <T extends TSchema>(schema: T): TSchema => Type.Union([schema, Type.Null()]);
const OneOf = (values: readonly string[], description?: string): TSchema =>
  Type.Union(values.map((v) => Type.Literal(v)), description === undefined ? {} : { description });

export const Role = Type.Object({ id: Type.String(), name: Type.String() });
export const User = Type.Object({
  id: Type.String(), name: Type.String(), role: OneOf(["admin", "member"]),
  profile: Type.Array(Type.String(), { description: "values matched against profile-filtered fields" }),
  email: Nullable(Type.String({ description: "what the user signs in with (POST /api/authenticate), lower-cased" })),
  disabled: Type.Boolean({ description: "a disabled user's tokens and sign-ins are refused" }),
});
export const UserWithRoles = Type.Object({ ...User.properties, roles: Type.Array(Role) });
export const IssuedToken = Type.Object({
  id: Type.String({ description: "the token's ID, to revoke it with" }),
  token: Type.String({ description: "the secret, shown this once: send it as Authorization: Bearer <token>" }),
});
export const Module = Type.Object({ id: Type.String(), name: Type.String() });

export const Field = Type.Object({
  slug: Type.String(), name: Type.String(), applyProfileFilter: Type.Boolean(),
  type: OneOf(FIELD_TYPES), options: Nullable(Type.Array(Type.String())), required: Type.Boolean(), unique: Type.Boolean(),
  maxLength: Nullable(Type.Integer()), pattern: Nullable(Type.String()), format: Nullable(Type.String()), indexed: Type.Boolean(),
});

export const Bloc = Type.Object({
  id: Type.String(), name: Type.String(),
  openToAllUsers: Type.Boolean(), acceptingData: Type.Boolean(), restriction: OneOf(RESTRICTION_MODES),
  moduleId: Nullable(Type.String()), requireJob: Type.Boolean(),
  scanLimit: Nullable(Type.Integer()), scanLimitPeriod: Nullable(OneOf(SCAN_LIMIT_PERIODS)),
  fields: Type.Array(Field),
});

const GrantProps = {
  read: Type.Boolean(), add: Type.Boolean(), update: Type.Boolean(), delete: Type.Boolean(), seeHidden: Type.Boolean(),
};
export const UserGrant = Type.Object({ blocId: Type.String(), userId: Type.String(), ...GrantProps });
export const RoleGrant = Type.Object({ blocId: Type.String(), roleId: Type.String(), ...GrantProps });
export const Restriction = Type.Object({ blocId: Type.String(), userId: Type.String(), mode: OneOf(RESTRICTION_MODES) });
export const Membership = Type.Object({ userId: Type.String(), roleId: Type.String() });

export const History = Type.Object({
  history: Type.Array(Type.Object({
    action: OneOf(["updated", "deleted", "restored"], "an update; or the record's deletion (changes: every value it held, to \"\") or restore (every value, from \"\")"),
    at: Type.String({ description: "YYYY-MM-DD HH:MM:SS" }),
    userId: Type.String(),
    tokenId: Nullable(Type.String()),
    changes: Type.Record(Type.String(), Type.Object({ from: Type.String(), to: Type.String() }), {
      description: "field slug (or submitted_status) → its value before and after",
    }),
  }), { description: "oldest first" }),
});

const Scope = Type.Object({
  permissions: Nullable(Type.Array(OneOf(PERMISSIONS))),
  blocs: Nullable(Type.Array(Type.String())),
}, { description: "what the token is narrowed to; null: no narrowing" });

export const Me = Type.Object({
  user: User,
  roles: Type.Array(Role),
  token: Scope,
  blocs: Type.Array(Type.Object({
    id: Type.String(), name: Type.String(), permissions: Type.Array(OneOf(PERMISSIONS)),
    restriction: OneOf(RESTRICTION_MODES), seeHidden: Type.Boolean(),
  }), { description: "the blocs the token may use, with what it may do on each" }),
});

export const Restored = Type.Object({
  blocId: Type.String(),
  recordId: Type.Integer({ description: "the record's ID, the same it had before it was deleted" }),
});

export const NoContent = Type.Null({ description: "Done; no body" });

/** A route's responses: its success answer and the refusals in its shape. */
export function answers(status: number, schema: TSchema, endpoint: Endpoint = "admin"): Record<number, TSchema> {
  return { [status]: schema, ...errorResponses(endpoint) };
}
