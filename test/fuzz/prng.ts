/**
 * A small seeded generator (sfc32), so that a fuzz run is reproduced exactly from its
 * printed seed: FUZZ_SEED=<seed> replays it. Math.random cannot be seeded.
 */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(readonly seed: number) {
    // splitmix32 spreads a small seed over the four words of state.
    let s = seed >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i += 1) this.uint32();
  }

  uint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** A float in [0, 1). */
  float(): number {
    return this.uint32() / 4294967296;
  }

  /** An integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** An integer in [min, max], both included. */
  between(min: number, max: number): number {
    return min + this.below(max - min + 1);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[this.below(items.length)]!;
  }

  /** Picks by weight: [[weight, value], …]. */
  weighted<T>(entries: readonly (readonly [number, T])[]): T {
    const total = entries.reduce((sum, [w]) => sum + w, 0);
    let roll = this.float() * total;
    for (const [weight, value] of entries) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return entries[entries.length - 1]![1];
  }

  /** A new generator for one request, so that requests stay reproducible whatever order they finish in. */
  fork(index: number): Prng {
    return new Prng((Math.imul(this.seed ^ 0x5bd1e995, 31) + index * 0x27d4eb2d) >>> 0);
  }
}

/** The seed a run uses: the named variable when set, else a fresh one (printed, so that a failure can be replayed). */
export function runSeed(name = "FUZZ_SEED", env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return (Date.now() ^ (process.pid << 16)) >>> 0;
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > 0xffffffff) throw new Error(`${name} must be a whole number below 2^32, got "${raw}"`);
  return Number(raw);
}
