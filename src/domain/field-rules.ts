import { InvalidInputError, RuleViolationError } from "./errors.js";
import { FIELD_TYPES, type Field, type FieldRules, type FieldType } from "./model.js";
import { parseBound } from "./dates.js";
import { parseFormat } from "./autogenerate.js";

export interface RulesInput {
  readonly type?: FieldType | undefined;
  readonly options?: readonly string[] | null | undefined;
  readonly required?: boolean | undefined;
  readonly unique?: boolean | undefined;
  readonly maxLength?: number | null | undefined;
  readonly pattern?: string | null | undefined;
  readonly format?: string | null | undefined;
  readonly indexed?: boolean | undefined;
}

export const TEXT_RULES: FieldRules = {
  type: "text", options: null, required: false, unique: false, maxLength: null, pattern: null, format: null, indexed: false,
};

function compile(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`, "u");
}

/**
 * A field's rules after a change, checked as a whole: a select needs options, an
 * autogenerate field a valid format, a pattern must compile. `slugs` are the bloc's
 * fields, which an autogenerate format may count by.
 */
export function resolveRules(base: FieldRules, input: RulesInput, slugs: readonly string[]): FieldRules {
  // A new type drops the old type's own settings unless they are given again.
  const retyped = input.type !== undefined && input.type !== base.type;
  const rules: FieldRules = {
    type: input.type ?? base.type,
    options: input.options === undefined ? (retyped ? null : base.options) : input.options,
    required: input.required ?? base.required,
    unique: input.unique ?? base.unique,
    maxLength: input.maxLength === undefined ? base.maxLength : input.maxLength,
    pattern: input.pattern === undefined ? base.pattern : input.pattern,
    format: input.format === undefined ? (retyped ? null : base.format) : input.format,
    indexed: input.indexed ?? base.indexed,
  };
  if (!FIELD_TYPES.includes(rules.type)) throw new InvalidInputError(`type must be one of ${FIELD_TYPES.join(", ")}`);
  if (rules.type === "select") {
    if (!rules.options || rules.options.length === 0) throw new InvalidInputError("a select field needs a non-empty options list");
  } else if (rules.options !== null) {
    throw new InvalidInputError("options apply only to select fields");
  }
  if (rules.type === "autogenerate") {
    if (!rules.format) throw new InvalidInputError("an autogenerate field needs a format such as INV-{seq:5}");
    parseFormat(rules.format, slugs);
  } else if (rules.format !== null) {
    throw new InvalidInputError("format applies only to autogenerate fields");
  }
  if (rules.maxLength !== null && (!Number.isInteger(rules.maxLength) || rules.maxLength < 1)) {
    throw new InvalidInputError("maxLength must be a whole number of at least 1");
  }
  if (rules.pattern !== null) {
    try {
      compile(rules.pattern);
    } catch (error) {
      throw new InvalidInputError(`pattern is not a valid regular expression: ${(error as Error).message}`);
    }
  }
  return rules;
}

/** One field's failure, as a sentence that names the field and the rule. */
function failure(field: Field, rule: string, detail: string): string {
  return `${field.slug} (${field.name}) breaks rule "${rule}": ${detail}`;
}

const NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

function typeFailure(field: Field, value: string): string | undefined {
  switch (field.type) {
    case "number":
      return NUMBER.test(value) ? undefined : failure(field, "number", `"${value}" is not a number`);
    case "date":
    case "datetime": {
      const shape = field.type === "date" ? /^\d{4}-\d{2}-\d{2}$/ : /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
      const ok = shape.test(value) && (() => { try { parseBound(field.slug, value, "start"); return true; } catch { return false; } })();
      return ok ? undefined
        : failure(field, field.type, `"${value}" is not a ${field.type === "date" ? "YYYY-MM-DD date" : "YYYY-MM-DD HH:MM:SS time"}`);
    }
    case "select":
      return field.options!.includes(value) ? undefined : failure(field, "options", `"${value}" is not one of ${field.options!.join(", ")}`);
    default:
      return undefined;
  }
}

/**
 * What is wrong with a value about to be written, or undefined. `whole` means the record
 * is being created, so a required field that is absent counts as empty. Uniqueness is
 * the store's to check, inside the write's transaction.
 */
function valueFailure(field: Field, value: string | undefined, whole: boolean): string | undefined {
  const written = value ?? (whole ? "" : undefined);
  if (written === undefined) return undefined;
  if (written === "") return field.required ? failure(field, "required", "a value must be given") : undefined;
  const wrongType = typeFailure(field, written);
  if (wrongType !== undefined) return wrongType;
  if (field.maxLength !== null && [...written].length > field.maxLength) {
    return failure(field, "maxLength", `at most ${field.maxLength} characters`);
  }
  if (field.pattern !== null && !compile(field.pattern).test(written)) {
    return failure(field, "pattern", `"${written}" does not match ${field.pattern}`);
  }
  return undefined;
}

/**
 * Checks every value about to be written and refuses them all at once: the error names
 * each failing field (its first broken rule), so that a form can mark every one of them
 * in one round trip rather than one per submit.
 */
export function checkValues(values: readonly (readonly [Field, string | undefined])[], whole: boolean): void {
  const fields: Record<string, string> = {};
  for (const [field, value] of values) {
    const problem = valueFailure(field, value, whole);
    if (problem !== undefined) fields[field.slug] = problem;
  }
  const sentences = Object.values(fields);
  if (sentences.length > 0) throw new RuleViolationError(sentences.join("; "), fields);
}

/**
 * The one refusal of a unique value, whoever holds it: a record the writer sees, one
 * hidden from them, or another record of the same update. It can only tell that some
 * record of the bloc holds the value (what refusing it tells anyway), never which
 * record, whose, or whether the writer could see it (docs/security.md).
 */
export function uniqueViolation(field: Field, value: string): RuleViolationError {
  const sentence = failure(field, "unique", `"${value}" is not available: no two records of this bloc may hold the same value`);
  return new RuleViolationError(sentence, { [field.slug]: sentence });
}
