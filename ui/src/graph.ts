// The relation graph: a small force layout (repulsion, springs, centring) drawn as SVG.
const SVG = "http://www.w3.org/2000/svg";
const SIZE = 520;
const STEPS = 300;

export type Edge = { subject: string; predicate: string; object: string; valid_to?: string | null };

/** A relation that no longer holds (its memory was replaced or forgotten) is drawn dashed,
 * its label saying since when. */
export function edgeLabel(e: Edge): string {
  return e.valid_to ? `${e.predicate} (ended ${e.valid_to.slice(0, 10)})` : e.predicate;
}

function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

export function layout(nodes: string[], edges: Edge[]): Map<string, { x: number; y: number }> {
  const at = new Map(
    nodes.map((n, i) => {
      const angle = (2 * Math.PI * i) / nodes.length;
      return [n, { x: SIZE / 2 + 150 * Math.cos(angle), y: SIZE / 2 + 150 * Math.sin(angle) }];
    }),
  );
  const ideal = Math.min(140, Math.max(60, SIZE / Math.sqrt(nodes.length + 1)));
  for (let step = 0; step < STEPS; step++) {
    const cooling = 1 - step / STEPS;
    const move = new Map(nodes.map((n) => [n, { x: 0, y: 0 }]));
    for (const a of nodes) {
      for (const b of nodes) {
        if (a === b) continue;
        const p = at.get(a)!, q = at.get(b)!;
        const dx = p.x - q.x || 0.01, dy = p.y - q.y || 0.01;
        const d2 = Math.max(dx * dx + dy * dy, 1);
        const push = (ideal * ideal) / d2;
        move.get(a)!.x += dx * push * 0.05;
        move.get(a)!.y += dy * push * 0.05;
      }
    }
    for (const e of edges) {
      const p = at.get(e.subject)!, q = at.get(e.object)!;
      const dx = q.x - p.x, dy = q.y - p.y;
      const d = Math.sqrt(dx * dx + dy * dy) || 1;
      const pull = (d - ideal) / d * 0.1;
      move.get(e.subject)!.x += dx * pull; move.get(e.subject)!.y += dy * pull;
      move.get(e.object)!.x -= dx * pull; move.get(e.object)!.y -= dy * pull;
    }
    for (const n of nodes) {
      const p = at.get(n)!, m = move.get(n)!;
      p.x += Math.max(-20, Math.min(20, m.x + (SIZE / 2 - p.x) * 0.01)) * cooling;
      p.y += Math.max(-20, Math.min(20, m.y + (SIZE / 2 - p.y) * 0.01)) * cooling;
      p.x = Math.max(60, Math.min(SIZE - 60, p.x));
      p.y = Math.max(40, Math.min(SIZE - 20, p.y));
    }
  }
  return at;
}

export function drawGraph(nodes: string[], edges: Edge[], open: (entity: string) => void): SVGElement {
  const at = layout(nodes, edges);
  const root = svg("svg", { viewBox: `0 0 ${SIZE} ${SIZE}`, class: "graph-canvas", role: "img", "aria-label": "Relation graph" });
  for (const e of edges) {
    const p = at.get(e.subject)!, q = at.get(e.object)!;
    const ended = e.valid_to ? " ended" : "";
    root.append(svg("line", { x1: p.x, y1: p.y, x2: q.x, y2: q.y, class: `edge${ended}` }));
    const label = svg("text", { x: (p.x + q.x) / 2, y: (p.y + q.y) / 2 - 4, class: `edge-label${ended}` });
    label.textContent = edgeLabel(e);
    root.append(label);
  }
  for (const n of nodes) {
    const p = at.get(n)!;
    const group = svg("g", { class: "node", tabindex: 0, "data-entity": n, transform: `translate(${p.x},${p.y})` });
    group.append(svg("circle", { r: 9 }));
    const label = svg("text", { y: -14, "text-anchor": "middle" });
    label.textContent = n;
    group.append(label);
    group.addEventListener("click", () => open(n));
    group.addEventListener("keydown", (e) => { if ((e as KeyboardEvent).key === "Enter") open(n); });
    root.append(group);
  }
  return root;
}
