// Graph views with Cytoscape.js: entity types coloured as in deploy/neo4j/browser-style.grass
// (injected at build time), edges labelled with their relation type.
import cytoscape from "cytoscape";

declare const __ENTITY_STYLE__: Record<string, { color: string; border: string; text: string }>;
export const entityStyle = __ENTITY_STYLE__;
const fallback = { color: "#A5ABB6", border: "#9AA1AC", text: "#FFFFFF" };

/** typeStyle is the colour of an entity type (the ontology's types are lower case: "client"). */
export function typeStyle(type: string) {
  const t = type ? type[0].toUpperCase() + type.slice(1) : "";
  return entityStyle[t] ?? fallback;
}

export interface GNode {
  key: string;
  name: string;
  type: string;
  center?: boolean;
}
export interface GEdge {
  from: string;
  to: string;
  type: string;
  chunkIDs: string[];
  cited?: boolean; // a chunk behind it is cited by the answer
}

// A neighbourhood is concentric around its entity; a short path reads top-down; larger path sets
// are laid out by force.
function layoutFor(nodes: GNode[]): cytoscape.LayoutOptions {
  if (nodes.some((n) => n.center)) {
    return { name: "concentric", concentric: (n: any) => (n.data("center") ? 2 : 1), levelWidth: () => 1, minNodeSpacing: 80, spacingFactor: 1.4, padding: 30, animate: false } as cytoscape.LayoutOptions;
  }
  if (nodes.length <= 6) return { name: "breadthfirst", directed: true, padding: 30, spacingFactor: 1.2, animate: false };
  return { name: "cose", padding: 20, animate: false };
}

/** draw renders nodes and edges into el; onEdge is called with a clicked edge. */
export function draw(el: HTMLElement, nodes: GNode[], edges: GEdge[], onEdge: (e: GEdge) => void, onNode?: (n: GNode) => void) {
  const byKey = new Map(nodes.map((n) => [n.key, n]));
  const cy = cytoscape({
    container: el,
    elements: [
      ...nodes.map((n) => {
        const s = typeStyle(n.type);
        return { data: { id: n.key, label: n.name, color: s.color, border: s.border, text: s.text, center: n.center ? 1 : 0 } };
      }),
      ...edges
        .filter((e) => byKey.has(e.from) && byKey.has(e.to))
        .map((e, i) => ({ data: { id: "e" + i, source: e.from, target: e.to, label: e.type, idx: i }, classes: e.cited ? "cited" : "" })),
    ],
    style: [
      {
        selector: "node",
        style: {
          "background-color": "data(color)",
          "border-color": "data(border)",
          "border-width": 2,
          label: "data(label)",
          "font-size": 12,
          "text-valign": "bottom",
          "text-margin-y": 4,
          "text-wrap": "wrap",
          "text-max-width": "110px",
          width: 34,
          height: 34,
        },
      },
      { selector: "node[center = 1]", style: { width: 46, height: 46, "border-width": 4 } },
      {
        selector: "edge",
        style: {
          width: 2,
          "line-color": "#A5ABB6",
          "target-arrow-color": "#A5ABB6",
          "target-arrow-shape": "triangle",
          "curve-style": "bezier",
          "control-point-step-size": 70, // parallel relations apart, so their labels do not overlap
          label: "data(label)",
          "font-size": 10,
          "text-rotation": "autorotate",
          "text-background-color": "#FFFFFF",
          "text-background-opacity": 1,
          "text-background-padding": "2px",
        },
      },
      { selector: "edge.cited", style: { width: 4, "line-color": "#3a9b52", "target-arrow-color": "#3a9b52", color: "#23723a", "font-weight": "bold" } },
      { selector: "edge:selected", style: { "line-color": "#2870C2", "target-arrow-color": "#2870C2", width: 4 } },
    ],
    layout: layoutFor(nodes),
    minZoom: 0.3,
    maxZoom: 3,
  });
  const kept = edges.filter((e) => byKey.has(e.from) && byKey.has(e.to));
  cy.on("tap", "edge", (ev) => onEdge(kept[ev.target.data("idx") as number]));
  if (onNode) cy.on("tap", "node", (ev) => onNode(byKey.get(ev.target.id())!));
  el.dataset.nodes = String(cy.nodes().length);
  el.dataset.edges = String(cy.edges().length);
  return cy;
}

/** cypherString quotes s as a Cypher string literal. */
export function cypherString(s: string): string {
  return "'" + s.replace(/\\/g, "\\\\").replace(/'/g, "\\'") + "'";
}

/** UID_PREFIX starts the opaque key the API gives an entity whose own key the caller may not see
 * (graph.UIDPrefix); the node keeps the rest in its uid property. */
const UID_PREFIX = "uid:";

/** nodeMatch is the property map that finds an entity by the key the API gave: {key: …}, or
 * {uid: …} for an opaque key. */
function nodeMatch(key: string): string {
  return key.startsWith(UID_PREFIX) ? `{uid: ${cypherString(key.slice(UID_PREFIX.length))}}` : `{key: ${cypherString(key)}}`;
}

/** subgraphCypher is a Cypher query for the same nodes and relations in Neo4j Browser. */
export function subgraphCypher(edges: GEdge[], nodes: GNode[]): string {
  if (edges.length === 0) {
    const keys = nodes.filter((n) => !n.key.startsWith(UID_PREFIX)).map((n) => cypherString(n.key));
    const uids = nodes.filter((n) => n.key.startsWith(UID_PREFIX)).map((n) => cypherString(n.key.slice(UID_PREFIX.length)));
    return `MATCH (n:Entity) WHERE n.key IN [${keys.join(", ")}] OR n.uid IN [${uids.join(", ")}] RETURN n`;
  }
  const parts = edges.map(
    (e, i) => `OPTIONAL MATCH p${i} = (:Entity ${nodeMatch(e.from)})-[:${"`" + e.type.replace(/`/g, "``") + "`"}]-(:Entity ${nodeMatch(e.to)})`,
  );
  return parts.join("\n") + "\nRETURN " + edges.map((_, i) => "p" + i).join(", ");
}
