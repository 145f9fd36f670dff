import crypto from "node:crypto";

/**
 * The IDs a live stream gives its events. A bloc's events are numbered 1, 2, 3, …, and a
 * stream shows a reader only the events of records they may see: were the number the ID,
 * the gaps between two IDs would count the changes hidden from them. So the number is
 * sealed (AES-256-GCM, with the bloc's ID bound in) under a key made once per instance:
 * the ID is opaque and unforgeable, yet any process of the instance can open the
 * Last-Event-ID a reconnecting client sends and resume right after it.
 */

const IV_BYTES = 12;
const TAG_BYTES = 16;

export function sealEventId(key: Buffer, blocId: string, seq: number): string {
  const iv = crypto.randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(blocId));
  const number = Buffer.alloc(8);
  number.writeBigUInt64BE(BigInt(seq));
  const sealed = Buffer.concat([cipher.update(number), cipher.final()]);
  return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString("base64url");
}

/** The event number an ID seals, or undefined when it is not one of this instance's IDs for this bloc. */
export function openEventId(key: Buffer, blocId: string, id: string): number | undefined {
  const raw = /^[A-Za-z0-9_-]{1,64}$/.test(id) ? Buffer.from(id, "base64url") : Buffer.alloc(0);
  if (raw.length !== IV_BYTES + 8 + TAG_BYTES) return undefined;
  try {
    const decipher = crypto.createDecipheriv("aes-256-gcm", key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(blocId));
    decipher.setAuthTag(raw.subarray(IV_BYTES + 8));
    const number = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, IV_BYTES + 8)), decipher.final()]);
    const seq = number.readBigUInt64BE();
    return seq <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(seq) : undefined;
  } catch {
    return undefined;
  }
}
