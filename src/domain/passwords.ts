import crypto from "node:crypto";
import { promisify } from "node:util";
import { InvalidInputError } from "./errors.js";

const scrypt = promisify(crypto.scrypt) as (password: string, salt: Buffer, keylen: number, options: crypto.ScryptOptions) => Promise<Buffer>;

/** The shortest password accepted. */
export const MIN_PASSWORD_LENGTH = 10;
/**
 * The longest: scrypt's cost grows with its input, so a megabyte "password" must not
 * reach it; no one types more than this.
 */
export const MAX_PASSWORD_LENGTH = 1024;

/**
 * scrypt's cost for new hashes: 2^15 × 8 × 128 bytes = 32 MiB of memory and some tens of
 * milliseconds per hash. Each hash records its own parameters, so raising them later
 * leaves existing hashes checkable.
 */
const COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;

/** Refuses a password too short or too long, without ever quoting it. */
export function checkPassword(name: string, password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) throw new InvalidInputError(`${name} must be at least ${MIN_PASSWORD_LENGTH} characters long`);
  if (password.length > MAX_PASSWORD_LENGTH) throw new InvalidInputError(`${name} must be at most ${MAX_PASSWORD_LENGTH} characters long`);
}

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }, bytes: number): Promise<Buffer> {
  // maxmem: Node's default (32 MiB) is exactly what N=2^15, r=8 needs, and it refuses at the bound.
  return scrypt(password, salt, bytes, { ...cost, maxmem: 256 * cost.N * cost.r + 1024 * 1024 });
}

/** `scrypt$N$r$p$salt$key`, salt and key in base64url: a per-user random salt, the parameters beside it. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(SALT_BYTES);
  const key = await derive(password, salt, COST, KEY_BYTES);
  return ["scrypt", COST.N, COST.r, COST.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

const FORMAT = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([\w-]{1,200})\$([\w-]{1,200})$/;

/** A hash no password matches, made once: checked against when there is no user, so that taking as long. */
let dummy: Promise<string> | undefined;

/**
 * Whether `password` is the one `stored` was made from. With no stored hash (no such
 * user, or one without a password) a dummy is checked all the same and false answered,
 * so that a wrong email costs what a wrong password costs.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const match = FORMAT.exec(stored ?? (await (dummy ??= hashPassword(crypto.randomBytes(16).toString("hex")))));
  if (!match) return false;
  const [, n, r, p, salt, key] = match;
  const expected = Buffer.from(key!, "base64url");
  if (expected.length === 0) return false;
  let actual: Buffer;
  try {
    actual = await derive(password, Buffer.from(salt!, "base64url"), { N: Number(n), r: Number(r), p: Number(p) }, expected.length);
  } catch {
    // Parameters scrypt refuses (a damaged hash) match no password.
    return false;
  }
  return crypto.timingSafeEqual(actual, expected) && stored !== null;
}
