import crypto from "node:crypto";

/**
 * The IDs a live stream gives its events. A bloc's events are numbered 1, 2, 3, …, and a
 * stream shows a reader only the events of records they may see: were the number the ID,
 * the gaps between two IDs would count the changes hidden from them. So the ID is one AES
 * block, encrypted under a key made once per instance: the event's number and a tag of the
 * bloc's ID and of the reader's (the user the stream was opened for). It is opaque (it
 * tells nothing of the number), the same every time an event is sent to that reader,
 * unforgeable (a block not made with the key decrypts to a wrong tag, but for a chance of
 * 2^-64), and any process of the instance can open the Last-Event-ID a reconnecting client
 * sends and resume right after it. An ID given to another reader, like one of another bloc,
 * does not open: a position is only ever resumed by the reader it was shown to. One block,
 * so one cipher serves every ID: no per-ID set-up.
 */
export class EventIds {
  private readonly cipher: crypto.Cipher;
  private readonly decipher: crypto.Decipher;

  constructor(key: Buffer) {
    this.cipher = crypto.createCipheriv("aes-256-ecb", key, null).setAutoPadding(false);
    this.decipher = crypto.createDecipheriv("aes-256-ecb", key, null).setAutoPadding(false);
  }

  /** The IDs of one reader's stream of one bloc. */
  of(blocId: string, readerId: string): ReaderIds {
    const mark = tag(blocId, readerId);
    return {
      seal: (seq) => {
        const block = Buffer.alloc(16);
        block.writeBigUInt64BE(BigInt(seq), 0);
        mark.copy(block, 8);
        return this.cipher.update(block).toString("base64url");
      },
      open: (id) => {
        if (!/^[A-Za-z0-9_-]{22}$/.test(id)) return undefined;
        const block = this.decipher.update(Buffer.from(id, "base64url"));
        if (block.length !== 16 || !block.subarray(8).equals(mark)) return undefined;
        const seq = block.readBigUInt64BE(0);
        return seq <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(seq) : undefined;
      },
    };
  }
}

export interface ReaderIds {
  seal(seq: number): string;
  /** The event number an ID seals, or undefined when it is not one of this instance's IDs for this bloc and reader. */
  open(id: string): number | undefined;
}

/** Eight bytes that stand for a bloc's ID and a reader's inside the IDs of their stream. */
function tag(blocId: string, readerId: string): Buffer {
  return crypto.createHash("sha256").update(`${blocId}\u0000${readerId}`).digest().subarray(0, 8);
}
