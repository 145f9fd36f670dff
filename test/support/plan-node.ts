/** A node of PostgreSQL's `EXPLAIN (ANALYZE, FORMAT JSON)` output, as far as the plan checks read it. */
export interface PlanNode {
  readonly "Node Type": string;
  readonly "Relation Name"?: string;
  readonly "Index Name"?: string;
  readonly "Actual Rows": number;
  readonly "Actual Loops": number;
  /** Present with BUFFERS. */
  readonly "Shared Hit Blocks"?: number;
  readonly "Shared Read Blocks"?: number;
  readonly Plans?: readonly PlanNode[];
}
