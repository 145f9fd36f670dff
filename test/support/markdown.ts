import assert from "node:assert/strict";

/*
 * What the documentation tests read in the README and the guides: fenced blocks, headings
 * and links, with code blocks told apart from prose (a shell comment `# …` in a block is
 * not a heading, nor `[x](y)` in a script a link).
 */

export interface FencedBlock {
  /** The line its opening fence is on, from 1. */
  readonly line: number;
  /** What follows the opening fence (`sh`, `shell`, `ini file=…`), trimmed. */
  readonly info: string;
  readonly text: string;
}

/** Every fenced block, in order; `file` names the page in the message of one that never closes. */
export function fencedBlocks(markdown: string, file: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i += 1) {
    const fence = /^(`{3,})(.*)$/.exec(lines[i]!);
    if (!fence) continue;
    const end = lines.findIndex((line, k) => k > i && line.startsWith(fence[1]!) && line.trim() === fence[1]);
    assert.ok(end > i, `${file} line ${i + 1}: a code block that never closes`);
    blocks.push({ line: i + 1, info: fence[2]!.trim(), text: lines.slice(i + 1, end).join("\n") });
    i = end;
  }
  return blocks;
}

/** The page with every fenced block's lines emptied, so line numbers still hold. */
export function prose(markdown: string, file: string): string {
  const lines = markdown.split("\n");
  for (const block of fencedBlocks(markdown, file)) {
    const last = block.line + block.text.split("\n").length;
    for (let i = block.line - 1; i <= last; i += 1) lines[i] = "";
  }
  return lines.join("\n");
}

/** The anchors GitHub gives the page's headings: lower case, punctuation dropped, spaces as `-`, repeats numbered. */
export function headingAnchors(markdown: string, file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of prose(markdown, file).matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const base = match[1]!.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replaceAll(" ", "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

export interface Link {
  readonly line: number;
  readonly target: string;
}

/** Every inline link and image in the prose (code spans and blocks left out), with the line it is on. */
export function links(markdown: string, file: string): Link[] {
  // A code span becomes spaces of its own length (its line feeds kept), so nothing in it reads as a link.
  const text = prose(markdown, file).replace(/(`+)[\s\S]*?\1/g, (span) => span.replace(/[^\n]/g, " "));
  return [...text.matchAll(/\]\(([^()\s]+)\)/g)].map((match) => ({
    line: text.slice(0, match.index).split("\n").length,
    target: match[1]!,
  }));
}
