import type { FastifyRequest } from "fastify";
import { Type, type TSchema } from "@sinclair/typebox";
import { FIELD_TYPES, PERMISSIONS, SCAN_LIMIT_PERIODS } from "../../domain/model.js";
import { MAX_ID_LENGTH } from "../../domain/values.js";

/** Request schemas of the admin API; Fastify validates bodies against them and the OpenAPI document lists them. */
export const tags = ["admin"];

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Permission = Type.Union(PERMISSIONS.map((p) => Type.Literal(p)));
const Restriction = Type.Union([Type.Literal("none"), Type.Literal("own"), Type.Literal("hidden")]);
/** Any ID in a path or body: longer ones name nothing and are refused (400) before a lookup. */
export const Id = Type.String({ maxLength: MAX_ID_LENGTH });
const BlocId = Type.Union([Id, Type.Integer({ minimum: 0 })]);

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A field's type and rules; see domain/field-rules.ts for how they combine. */
const Rules = {
  type: Type.Optional(Type.Union(FIELD_TYPES.map((t) => Type.Literal(t)))),
  options: Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 1000 }))),
  required: Type.Optional(Type.Boolean()),
  unique: Type.Optional(Type.Boolean()),
  maxLength: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  pattern: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  format: Type.Optional(Nullable(Type.String({ maxLength: 200, description: "e.g. INV-{seq:5}, {YYYY}{MM}{DD}-{seq:3}, {seq:4 by field_2}" }))),
  indexed: Type.Optional(Type.Boolean({ description: "accepted for compatibility; every field's values are indexed for searching" })),
};

export const FieldBody = Type.Object({
  name: Name,
  slug: Type.Optional(Id),
  applyProfileFilter: Type.Optional(Type.Boolean()),
  ...Rules,
}, { additionalProperties: false });

export const FieldPatch = Type.Object({
  name: Type.Optional(Name),
  applyProfileFilter: Type.Optional(Type.Boolean()),
  ...Rules,
}, { additionalProperties: false });

const Settings = {
  openToAllUsers: Type.Optional(Type.Boolean()),
  acceptingData: Type.Optional(Type.Boolean()),
  restriction: Type.Optional(Restriction),
  moduleId: Type.Optional(Nullable(Type.Union([Id, Type.Integer({ minimum: 1 })]))),
  requireJob: Type.Optional(Type.Boolean()),
  scanLimit: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  scanLimitPeriod: Type.Optional(Nullable(Type.Union(SCAN_LIMIT_PERIODS.map((p) => Type.Literal(p))))),
};

export const BlocBody = Type.Object({
  name: Name,
  fields: Type.Optional(Type.Array(FieldBody, { maxItems: 500 })),
  id: Type.Optional(BlocId),
  ...Settings,
}, { additionalProperties: false });

export const BlocPatch = Type.Object(Settings, { additionalProperties: false });

export const UserBody = Type.Object({
  name: Name,
  role: Type.Optional(Type.Union([Type.Literal("admin"), Type.Literal("member")])),
  email: Type.Optional(Type.String({ maxLength: 254, description: "to sign in with; case-insensitive, unique" })),
  password: Type.Optional(Type.String({ minLength: 10, maxLength: 1024, description: "at least 10 characters; never logged or returned" })),
}, { additionalProperties: false });

export const UserPatch = Type.Object({
  profile: Type.Array(Type.String({ maxLength: 200 }), { maxItems: 1000 }),
}, { additionalProperties: false });

export const TokenBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200 })),
  expiresAt: Type.Optional(Type.String({ description: "YYYY-MM-DD HH:MM:SS in BLOC_TIMEZONE" })),
  permissions: Type.Optional(Type.Array(Permission, { minItems: 1 })),
  blocs: Type.Optional(Type.Array(BlocId, { minItems: 1 })),
}, { additionalProperties: false });

export const RoleBody = Type.Object({ name: Name }, { additionalProperties: false });
export const ModuleBody = Type.Object({ name: Name }, { additionalProperties: false });

export const GrantBody = Type.Object({
  read: Type.Optional(Type.Boolean()),
  add: Type.Optional(Type.Boolean()),
  update: Type.Optional(Type.Boolean()),
  delete: Type.Optional(Type.Boolean()),
  seeHidden: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

export const RestrictionBody = Type.Object({ mode: Restriction }, { additionalProperties: false });

export const UserParams = Type.Object({ userId: Id });
export const TokenParams = Type.Object({ tokenId: Id });
export const BlocParams = Type.Object({ blocId: Id });
export const FieldParams = Type.Object({ blocId: Id, slug: Id });
export const UserRoleParams = Type.Object({ userId: Id, roleId: Id });
export const BlocUserParams = Type.Object({ blocId: Id, userId: Id });
export const BlocRoleParams = Type.Object({ blocId: Id, roleId: Id });
export const RoleParams = Type.Object({ roleId: Id });
export const ModuleParams = Type.Object({ moduleId: Id });

/** Lets a body whose every key is optional be left out entirely. */
export async function emptyBodyIsObject(request: FastifyRequest): Promise<void> {
  request.body ??= {};
}
