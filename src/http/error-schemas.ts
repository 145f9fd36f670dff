import { Type, type TSchema } from "@sinclair/typebox";
import { errorKeysByStatus, type Endpoint } from "./error-shapes.js";

const TEXT = { description: "what was wrong, in words" };

/** BLOC_DEBUG=1 adds where the failure was raised (the spec's debug fields). */
const DEBUG = {
  file: Type.Optional(Type.String({ description: "BLOC_DEBUG=1 only: the source file" })),
  line: Type.Optional(Type.String({ description: "BLOC_DEBUG=1 only: the line in it" })),
  trace: Type.Optional(Type.String({ description: "BLOC_DEBUG=1 only: the stack trace" })),
};

/** A refusal of field values (add-data, update-records) names each failing field. */
const FIELDS = {
  fields: Type.Optional(Type.Record(Type.String(), Type.String(), {
    description: "a refusal of field values only: each failing field's slug → what is wrong with its value",
  })),
};

function body(key: string, status: number): TSchema {
  return Type.Object({ [key]: Type.String(TEXT), ...(status === 400 ? FIELDS : {}), ...DEBUG },
    { description: `${status}: the text is under \`${key}\`` });
}

/**
 * The refusals of one endpoint as response schemas, in its own shape: `error` or
 * `message` per the spec's table, both where a status can carry either.
 */
export function errorResponses(endpoint: Endpoint): Record<number, TSchema> {
  const responses: Record<number, TSchema> = {};
  for (const [status, keys] of errorKeysByStatus(endpoint)) {
    const shapes = [...keys].map((key) => body(key, status));
    responses[status] = shapes.length === 1 ? shapes[0]! : Type.Union(shapes, {
      description: `${status}: the text is under ${[...keys].map((k) => `\`${k}\``).join(" or ")} (see the spec's Errors table)`,
    });
  }
  return responses;
}
