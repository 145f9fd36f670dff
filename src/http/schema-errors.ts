import type { FastifySchemaValidationError } from "fastify";
import { InvalidInputError, MissingParameterError, type ServiceError } from "../domain/errors.js";
import { describeValue } from "../domain/values.js";

/**
 * Schema refusals of the four spec endpoints, as the domain's errors, so that the error
 * handler answers them in the endpoint's shape (error-shapes.ts) like any hand-made one.
 * The text comes from the schema itself: a property's `description` says what it must be
 * ("blocId must be a string or a whole number, got true"), so the OpenAPI document and
 * the refusal say the same thing. Needs Ajv's `verbose` (server-options.ts) for the value
 * and the failing schema.
 */
export interface SchemaErrorOptions {
  /** The text of a missing required parameter, when the endpoint has one fixed text for it (update-records). */
  readonly missing?: string;
}

/** What Ajv's verbose mode adds to an error. */
type AjvError = FastifySchemaValidationError & {
  readonly data?: unknown;
  readonly parentSchema?: { readonly description?: unknown };
};

function pathOf(instancePath: string, extra?: string): string {
  const parts = instancePath.split("/").slice(1).map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (extra !== undefined) parts.push(extra);
  return parts.join(".");
}

const depth = (error: AjvError): number => error.instancePath.split("/").length;

/**
 * The error that says most: the deepest one (inside the branch of a union that the value
 * took), and at equal depth the union's own, whose description covers every branch.
 */
function mostTelling(errors: readonly AjvError[]): AjvError {
  let best = errors[0]!;
  for (const error of errors.slice(1)) {
    if (depth(error) > depth(best) || (depth(error) === depth(best) && (error.keyword === "anyOf" || error.keyword === "oneOf"))) {
      best = error;
    }
  }
  return best;
}

export function schemaError(errors: readonly FastifySchemaValidationError[], options: SchemaErrorOptions = {}): ServiceError {
  const all = errors as readonly AjvError[];
  const required = all.find((error) => error.keyword === "required");
  if (required) {
    const name = pathOf(required.instancePath, String(required.params.missingProperty));
    return new MissingParameterError(options.missing ?? `${name} is required`);
  }
  const error = mostTelling(all);
  const name = pathOf(error.instancePath) || "the request";
  // A required parameter sent as null is missing, as the hand readers (params.ts) always took it.
  if (error.data === null && error.instancePath.split("/").length === 2) {
    return new MissingParameterError(options.missing ?? `${name} is required`);
  }
  if (error.keyword === "maxLength") return new InvalidInputError(`${name} is longer than ${String(error.params.limit)} characters`);
  if (error.keyword === "maxItems") return new InvalidInputError(`${name} lists more than ${String(error.params.limit)} items`);
  const description = typeof error.parentSchema?.description === "string" ? error.parentSchema.description : undefined;
  const expected = description === undefined ? (error.message ?? "is not valid") : `must be ${description}`;
  return new InvalidInputError(`${name} ${expected}, got ${describeValue(error.data)}`);
}

/** A route's schemaErrorFormatter: Fastify sets the status and code on what it returns. */
export function schemaErrorFormatter(options: SchemaErrorOptions = {}) {
  return (errors: FastifySchemaValidationError[]): Error => schemaError(errors, options);
}
