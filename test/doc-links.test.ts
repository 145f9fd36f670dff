import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { headingAnchors, links } from "./support/markdown.js";

/*
 * The README and the guides in docs/ hold together as pages of one checkout: every relative
 * link (and image) names a file of the checkout, never one beside it (a clone has nothing
 * there), and a link to a heading names one the page has, as GitHub anchors them.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

async function pages(): Promise<string[]> {
  const guides = (await fs.readdir(path.join(root, "docs"))).filter((name) => name.endsWith(".md")).sort();
  return ["README.md", ...guides.map((name) => `docs/${name}`)];
}

test("every relative link in the README and the guides names a file of the checkout, and a heading it has", async () => {
  const anchors = new Map<string, Set<string>>();
  const anchorsOf = async (page: string): Promise<Set<string>> => {
    if (!anchors.has(page)) anchors.set(page, headingAnchors(await fs.readFile(path.join(root, page), "utf8"), page));
    return anchors.get(page)!;
  };
  let checked = 0;
  let toHeadings = 0;
  for (const page of await pages()) {
    for (const { line, target } of links(await fs.readFile(path.join(root, page), "utf8"), page)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: — not a page of the checkout
      const where = `${page} line ${line}: ${target}`;
      const [file = "", anchor] = target.split("#", 2);
      assert.ok(!path.isAbsolute(file), `${where}: a link from the checkout's root works on one host only`);
      const resolved = file === "" ? page : path.relative(root, path.resolve(root, path.dirname(page), decodeURIComponent(file)));
      assert.ok(!resolved.startsWith(".."), `${where}: outside the checkout`);
      await assert.doesNotReject(fs.stat(path.join(root, resolved)), `${where}: no such file`);
      checked += 1;
      if (anchor === undefined) continue;
      assert.ok(resolved.endsWith(".md"), `${where}: a heading of a page that is not Markdown`);
      assert.ok((await anchorsOf(resolved)).has(anchor), `${where}: ${resolved} has no heading #${anchor}`);
      toHeadings += 1;
    }
  }
  // The README links every guide, and the guides each other's headings: a parser that found none checked nothing.
  assert.ok(checked >= 50, `only ${checked} relative links found`);
  assert.ok(toHeadings >= 20, `only ${toHeadings} links to headings found`);
});

test("the README stays an entrance: under 250 lines, and it links every guide in docs/", async () => {
  const readme = await fs.readFile(path.join(root, "README.md"), "utf8");
  const lines = readme.split("\n").length - (readme.endsWith("\n") ? 1 : 0);
  assert.ok(lines < 250, `README.md has ${lines} lines`);
  const linked = new Set(links(readme, "README.md").map(({ target }) => target.split("#")[0]));
  for (const page of (await pages()).slice(1)) assert.ok(linked.has(page), `the README links ${page}`);
});
