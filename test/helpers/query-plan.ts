/** PostgreSQL's `EXPLAIN (FORMAT JSON)` plans, as plan tests read them. */

/** One node of a plan. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** The first node, depth first, that `match` accepts. */
export function findNode(node: PlanNode, match: (node: PlanNode) => boolean): PlanNode | undefined {
  if (match(node)) return node;
  for (const child of node.Plans ?? []) {
    const found = findNode(child, match);
    if (found) return found;
  }
  return undefined;
}
