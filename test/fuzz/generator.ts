import type { Prng } from "./prng.js";
import { BODY_LIMIT, finish, type FuzzRequest } from "./request.js";
import type { World } from "./world.js";
import type { Case } from "./case-kit.js";
import { ADD_DATA_CASES } from "./add-data-cases.js";
import { GET_DATA_CASES, REPORT_CASES } from "./read-cases.js";
import { UPDATE_CASES } from "./update-cases.js";
import { ADMIN_CASES, PROTOTYPE_SLUG_CASES } from "./admin-cases.js";
import { ENVELOPE_CASES, HUGE_URL_CASES, OVERSIZED_BODILESS_CASES, SLOW_CASES, UNKNOWN_ROUTE_CASES } from "./envelope-cases.js";
import { MULTIPART_CASES } from "./multipart-cases.js";
import { addNoise } from "./noise.js";

/** A case with the category its requests are counted under. */
export interface Category {
  readonly name: string;
  readonly weight: number;
  readonly build: Case["build"];
  /** No noise: the case's bytes are the point (multipart, oversized, slow). */
  readonly quiet: boolean;
}

/** Families of cases and each family's share of the requests. */
const FAMILIES: readonly { readonly prefix: string; readonly share: number; readonly cases: readonly Case[]; readonly quiet?: boolean }[] = [
  { prefix: "add-data/", share: 15, cases: ADD_DATA_CASES },
  { prefix: "get-data/", share: 11, cases: GET_DATA_CASES },
  { prefix: "get-data-report/", share: 11, cases: REPORT_CASES },
  { prefix: "update-records/", share: 11, cases: UPDATE_CASES },
  { prefix: "admin/", share: 22, cases: ADMIN_CASES },
  { prefix: "admin/", share: 0.4, cases: PROTOTYPE_SLUG_CASES },
  { prefix: "envelope/", share: 17, cases: ENVELOPE_CASES },
  { prefix: "envelope/", share: 0.5, cases: OVERSIZED_BODILESS_CASES, quiet: true },
  { prefix: "envelope/", share: 0.15, cases: SLOW_CASES, quiet: true },
  { prefix: "envelope/", share: 1.5, cases: UNKNOWN_ROUTE_CASES },
  { prefix: "envelope/", share: 0.3, cases: HUGE_URL_CASES, quiet: true },
  { prefix: "multipart/", share: 6, cases: MULTIPART_CASES, quiet: true },
];

/** Every category with its weight: a family's share spread over its cases by their weights. */
export function allCategories(): Category[] {
  return FAMILIES.flatMap((family) => {
    const total = family.cases.reduce((sum, c) => sum + c.weight, 0);
    return family.cases.map((c): Category => ({
      // Admin cases carry their route in the name; the category of a request is set by the case itself.
      name: c.name.startsWith(family.prefix) ? c.name : `${family.prefix}${c.name}`,
      weight: (family.share * c.weight) / total,
      build: c.build.bind(c),
      quiet: family.quiet ?? false,
    }));
  });
}

/** The index-th request of a run: its own generator, so it is the same whatever else the run holds. */
export function generate(rng: Prng, world: World, categories: readonly Category[]): FuzzRequest {
  const category = rng.weighted(categories.map((c) => [c.weight, c] as const));
  const quietRng = rng.fork(1);
  const draft = category.build(rng, world);
  if (category.quiet || draft.transport.kind !== "http") return finish(draft);
  addNoise(rng, draft);
  const noisy = finish(draft);
  // Noise never takes a body over the limit: oversized bodies are categories of their own.
  if ((noisy.body?.length ?? 0) <= BODY_LIMIT) return noisy;
  return finish(category.build(quietRng, world));
}
