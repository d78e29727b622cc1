// The cortex memory browser, an MCP App: every view reads and writes through the host, which
// relays tool calls to the cortex-mcp server (app-only tools carry _meta.ui.visibility ["app"]).
import {
  App,
  applyDocumentTheme,
  applyHostStyleVariables,
  type McpUiHostContext,
} from "@modelcontextprotocol/ext-apps";
import "./app.css";
import { drawGraph, edgeLabel, type Edge } from "./graph";
import { bars, h, field, select, clear } from "./dom";

type Json = Record<string, any>;
type View = "memories" | "search" | "graph" | "lifecycle" | "stats" | "profile" | "log";

const LAYERS = ["working", "core", "archive"];
// The values of cortex_mcp.models.Category (tests/test_browser.py checks they match).
const CATEGORIES = [
  "identity", "preference", "rule", "decision", "fact", "insight", "todo", "correction",
  "skill", "relationship", "project_state", "context", "summary", "profile",
];
const VIEWS: [View, string][] = [
  ["memories", "Memories"], ["search", "Search"], ["graph", "Graph"],
  ["lifecycle", "Lifecycle"], ["stats", "Stats"], ["profile", "Profile"], ["log", "Log"],
];

const BREAKDOWN_ROWS = 20;
const app = new App({ name: "cortex-memory-browser", version: "0.1.0" });
const root = document.getElementById("app")!;
const nav = h("nav", { class: "tabs", role: "tablist" });
const status = h("div", { class: "status", role: "status", "aria-live": "polite" });
const main = h("main", { class: "view" });
root.append(h("header", {}, h("h1", {}, "cortex memory"), nav), status, main);

const state = {
  view: "memories" as View,
  filters: { layer: "", category: "", state: "live", sort: "newest", tag: "", project: "", since: "", until: "", scope: "all" } as Record<string, string>,
  cursors: [null] as (string | null)[],
  page: 0,
  display: "table" as "table" | "timeline",
  query: "",
  agent: "" as string, // the agent cortex_browse was opened for; empty: the default agent
};
const UNSCOPED = new Set(["cortex_lifecycle", "cortex_app_lifecycle_log"]);

async function call(name: string, args: Json = {}): Promise<Json> {
  if (state.agent && !UNSCOPED.has(name)) args = { ...args, agent_id: state.agent };
  const result = await app.callServerTool({ name, arguments: args });
  const text = (result.content ?? []).map((b: any) => (b.type === "text" ? b.text : "")).join("\n");
  if (result.isError) throw new Error(text.replace(/^Error executing tool \S+: /, ""));
  return (result.structuredContent as Json) ?? JSON.parse(text);
}

// Views load asynchronously; only the latest one asked for may draw (a slower, older answer
// must not replace it).
let latest = 0;
function turn(): () => boolean {
  const mine = ++latest;
  return () => mine === latest;
}

function say(message: string, kind: "info" | "error" = "info"): void {
  status.textContent = message;
  status.dataset.kind = kind;
}

async function guarded(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    say(err instanceof Error ? err.message : String(err), "error");
  }
}

function show(view: View): void {
  state.view = view;
  for (const tab of nav.querySelectorAll("button")) {
    tab.setAttribute("aria-selected", String(tab.dataset.view === view));
  }
  say("");
  void guarded(RENDER[view]);
}

for (const [view, label] of VIEWS) {
  const tab = h("button", { role: "tab", "data-view": view }, label);
  tab.addEventListener("click", () => show(view));
  nav.append(tab);
}

function when(iso: string): string {
  return iso.replace("T", " ").slice(0, 16);
}

// ---- Memories: table and timeline, filters, keyset paging ----
async function renderMemories(): Promise<void> {
  const f = state.filters;
  const args: Json = { limit: 25, sort: f.sort, state: f.state, scope: f.scope };
  for (const key of ["layer", "category", "tag", "project", "since", "until"]) if (f[key]) args[key] = f[key];
  const cursor = state.cursors[state.page];
  if (cursor) args.cursor = cursor;
  const current = turn();
  const page = await call("cortex_app_memories", args);
  if (!current()) return;
  if (page.next_cursor) state.cursors[state.page + 1] = page.next_cursor;
  clear(main);
  const refilter = () => { state.cursors = [null]; state.page = 0; void guarded(renderMemories); };
  const pick = (key: string, label: string, options: string[]) =>
    select(label, options, f[key], (v) => { f[key] = v; refilter(); });
  const text = (key: string, label: string, type = "text") => {
    const input = h("input", { type, value: f[key], name: key }) as HTMLInputElement;
    input.addEventListener("change", () => { f[key] = input.value.trim(); refilter(); });
    return field(label, input);
  };
  const toggle = h("button", { class: "ghost", "data-action": "display" },
    state.display === "table" ? "Timeline" : "Table");
  toggle.addEventListener("click", () => {
    state.display = state.display === "table" ? "timeline" : "table";
    void guarded(renderMemories);
  });
  main.append(h("div", { class: "filters" },
    pick("layer", "Layer", ["", ...LAYERS]), pick("category", "Category", ["", ...CATEGORIES]),
    pick("state", "State", ["live", "forgotten", "superseded", "all"]),
    pick("scope", "Agent", ["all", "agent", "shared"]),
    pick("sort", "Sort", ["newest", "oldest", "importance"]),
    text("tag", "Tag"), text("project", "Project"), text("since", "From", "date"), text("until", "Before", "date"), toggle));
  const memories = page.memories as Json[];
  if (!memories.length) main.append(h("p", { class: "empty" }, "No memories match."));
  else if (state.display === "table") main.append(memoryTable(memories));
  else main.append(timeline(memories));
  const prev = h("button", { "data-action": "prev" }, "← Newer") as HTMLButtonElement;
  const next = h("button", { "data-action": "next" }, "Older →") as HTMLButtonElement;
  prev.disabled = state.page === 0;
  next.disabled = !page.next_cursor;
  prev.addEventListener("click", () => { state.page -= 1; void guarded(renderMemories); });
  next.addEventListener("click", () => { state.page += 1; void guarded(renderMemories); });
  main.append(h("div", { class: "pager" }, prev, h("span", {}, `Page ${state.page + 1}`), next));
}

function memoryTable(memories: Json[]): HTMLElement {
  const body = h("tbody");
  for (const m of memories) {
    const row = h("tr", { class: `state-${m.state}`, tabindex: "0", "data-id": m.id },
      h("td", { class: "content" }, m.content),
      h("td", {}, h("span", { class: `badge layer-${m.layer}` }, m.layer)),
      h("td", {}, m.category), h("td", { class: "num" }, m.importance.toFixed(2)),
      h("td", { class: "time" }, when(m.created_at)));
    row.addEventListener("click", () => void guarded(() => renderDetail(m.id)));
    row.addEventListener("keydown", (e) => { if ((e as KeyboardEvent).key === "Enter") row.click(); });
    body.append(row);
  }
  const head = h("thead", {}, h("tr", {}, ...["Memory", "Layer", "Category", "Importance", "Created"].map((c) => h("th", {}, c))));
  return h("div", { class: "scroll" }, h("table", { class: "memories" }, head, body));
}

function timeline(memories: Json[]): HTMLElement {
  const list = h("ol", { class: "timeline" });
  let day = "";
  for (const m of memories) {
    if (m.created_at.slice(0, 10) !== day) {
      day = m.created_at.slice(0, 10);
      list.append(h("li", { class: "day" }, day));
    }
    const item = h("li", { class: `event state-${m.state}`, "data-id": m.id },
      h("span", { class: "time" }, m.created_at.slice(11, 16)),
      h("span", { class: `badge layer-${m.layer}` }, m.layer), h("span", {}, m.content));
    item.addEventListener("click", () => void guarded(() => renderDetail(m.id)));
    list.append(item);
  }
  return list;
}

// ---- One memory: edit, forget / restore, the correction chain ----
async function renderDetail(id: string): Promise<void> {
  const current = turn();
  const detail = await call("cortex_app_memory", { memory_id: id });
  if (!current()) return;
  const m = detail.memory as Json;
  clear(main);
  const back = h("button", { class: "ghost", "data-action": "back" }, "← Back to memories");
  back.addEventListener("click", () => show("memories"));
  const content = h("textarea", { name: "content", rows: "4" }) as HTMLTextAreaElement;
  content.value = m.content;
  const category = select("Category", CATEGORIES, m.category, () => {});
  const layer = select("Layer", LAYERS, m.layer, () => {});
  const importance = h("input", { type: "number", name: "importance", min: "0", max: "1", step: "0.05", value: String(m.importance) }) as HTMLInputElement;
  const live = m.state === "live";
  const save = h("button", { class: "primary", "data-action": "save" }, "Save") as HTMLButtonElement;
  save.disabled = !live;
  save.addEventListener("click", () => void guarded(async () => {
    await call("cortex_app_edit", {
      memory_id: id, content: content.value,
      category: (category.querySelector("select") as HTMLSelectElement).value,
      layer: (layer.querySelector("select") as HTMLSelectElement).value,
      importance: Number(importance.value),
    });
    await renderDetail(id);
    say("Saved.");
  }));
  const forget = h("button", { class: "danger", "data-action": "forget" }, "Forget");
  forget.addEventListener("click", () => void guarded(async () => {
    await call("cortex_forget", { memory_id: id, reason: "forgotten in the memory browser" });
    await renderDetail(id);
    say("Forgotten. Restore brings it back.");
  }));
  const restore = h("button", { "data-action": "restore" }, "Restore");
  restore.addEventListener("click", () => void guarded(async () => {
    await call("cortex_restore", { memory_id: id });
    await renderDetail(id);
    say("Restored.");
  }));
  const purge = h("button", { class: "danger", "data-action": "purge", title: "Erase for good, with every copy of its text" }, "Purge") as HTMLButtonElement;
  purge.addEventListener("click", () => void guarded(async () => {
    if (purge.dataset.armed !== "yes") {  // two clicks: a purge cannot be undone
      purge.dataset.armed = "yes";
      purge.textContent = "Click again to erase for good";
      return;
    }
    await call("cortex_forget", { memory_id: id, purge: true });
    show("memories");
    say("Purged: erased for good, with every copy of its text.");
  }));
  const actions = h("div", { class: "actions" }, save, live ? forget : restore, purge);
  main.append(back, h("section", { class: "detail card" },
    h("div", { class: "meta" }, h("span", { class: `badge layer-${m.layer}` }, m.layer),
      h("span", { class: `badge state-${m.state}` }, m.state), h("code", {}, m.id)),
    field("Content", content),
    h("div", { class: "row" }, category, layer, field("Importance", importance)),
    actions,
    h("p", { class: "hint" }, "Forget hides it (Restore brings it back); Purge erases it and every copy of its text for good."),
  ));
  main.append(h("section", { class: "card" }, h("h2", {}, "Correction chain"), chain(detail.chain as Json[], id)));
  if ((detail.relations as Json[]).length) {
    main.append(h("section", { class: "card" }, h("h2", {}, "Relations"),
      h("ul", {}, ...(detail.relations as Json[]).map((r) => h("li", { class: r.valid_to ? "ended" : "" }, `${r.subject} —${edgeLabel(r as Edge)}→ ${r.object}`)))));
  }
  if (m.metadata.kind === "episode" && m.metadata.episode) main.append(episodeCard(m.metadata.episode));
  const raw = h("pre", { class: "raw" }, JSON.stringify(m.metadata, null, 2));
  main.append(h("details", { class: "card" }, h("summary", {}, "Metadata"), raw));
}

// An episode (one session): its goal, outcome and tool calls, errors and decisions kept.
function episodeCard(e: Json): HTMLElement {
  const step = (a: Json) => h("li", { class: `step ${a.success === false ? "failed" : "ok"}` },
    h("code", {}, `${a.tool} ${a.params}`),
    h("span", {}, a.success === false ? `✗ ${a.error}` : a.result ? `✓ ${a.result}` : "no result"),
    a.decision ? h("span", { class: "hint why" }, `Then: ${a.decision}`) : "");
  return h("section", { class: "card episode" }, h("h2", {}, "Episode"),
    h("p", {}, h("strong", {}, "Goal: "), e.goal || "—"),
    h("p", {}, h("strong", {}, "Outcome: "), e.outcome),
    h("p", { class: "hint" }, `${when(e.started_at)} – ${when(e.ended_at)} · ${e.messages} messages · ${(e.memory_ids as string[]).length} memories · by ${e.summary_by}`),
    (e.actions as Json[]).length ? h("ol", { class: "steps" }, ...(e.actions as Json[]).map(step)) : h("p", { class: "empty" }, "No tool calls."));
}

/** Restore a replaced or forgotten memory from its place in the chain, then show `from` again. */
function restoreButton(id: string, from: string): HTMLElement {
  const button = h("button", { class: "ghost", "data-action": "restore-link", title: "Make this memory live again" }, "Restore");
  button.addEventListener("click", (event) => {
    event.stopPropagation();  // the click is the button's, not the row's (which opens the memory)
    void guarded(async () => {
      await call("cortex_restore", { memory_id: id });
      await renderDetail(from);
      say("Restored: it is live again beside the memory that replaced it.");
    });
  });
  return button;
}

function chain(links: Json[], from: string): HTMLElement {
  const list = h("ol", { class: "chain" });
  for (const link of links) {
    const item = h("li", { class: `link state-${link.state}${link.is_this ? " this" : ""}`, "data-id": link.id },
      h("span", { class: "time" }, when(link.created_at)), h("span", {}, link.content),
      h("span", { class: `badge state-${link.state}` }, link.state));
    if (link.superseded_because) item.append(h("span", { class: "hint why" }, `Replaced because: ${link.superseded_because}`));
    if (link.state === "superseded" || link.state === "forgotten") item.append(restoreButton(link.id, from));
    if (!link.is_this) item.addEventListener("click", () => void guarded(() => renderDetail(link.id)));
    list.append(item);
  }
  if (links.length < 2) list.append(h("li", { class: "hint" }, "Nothing replaced this memory, and it replaced nothing."));
  return list;
}

// ---- Search: the score breakdown and three rankings side by side ----
async function renderSearch(): Promise<void> {
  turn();
  clear(main);
  const input = h("input", { type: "search", name: "query", placeholder: "What to look for", value: state.query }) as HTMLInputElement;
  const go = h("button", { class: "primary", "data-action": "search" }, "Search");
  const results = h("div");
  const run = () => void guarded(async () => {
    state.query = input.value;
    if (!state.query.trim()) return;
    const found = await call("cortex_app_search", { query: state.query });
    clear(results);
    results.append(sideBySide(found.rankings), breakdown(found));
  });
  go.addEventListener("click", run);
  input.addEventListener("keydown", (e) => { if ((e as KeyboardEvent).key === "Enter") run(); });
  main.append(h("div", { class: "searchbar" }, input, go), results);
  if (state.query) run();
}

function sideBySide(rankings: Json): HTMLElement {
  const column = (title: string, items: Json[]) => h("section", { class: "ranking card", "data-ranking": title },
    h("h2", {}, title),
    items.length
      ? h("ol", {}, ...items.slice(0, 10).map((i) => h("li", {}, h("span", { class: "num" }, i.score.toFixed(3)), h("span", {}, i.content))))
      : h("p", { class: "empty" }, "No candidates from this backend."));
  return h("div", { class: "columns" }, column("BM25", rankings.bm25), column("Vector", rankings.vector), column("Hybrid", rankings.hybrid));
}

function breakdown(found: Json): HTMLElement {
  const cols = ["final_score", "bm25", "text_score", "vector_score", "fused_score", "date_boost", "layer_weight", "recency_boost", "access_boost"];
  const label = (c: string) => h("th", { class: "num", title: c }, c.replace(/_(score|boost|weight)$/, "").replace("_", " "));
  const fmt = (v: unknown) => (typeof v === "number" ? v.toFixed(3) : "—");
  const shown = (found.candidates as Json[]).slice(0, BREAKDOWN_ROWS);
  const rows = shown.map((c) => h("tr", { "data-id": c.memory.id },
    h("td", { class: "num" }, String(c.rank)), h("td", { class: "content" }, c.memory.content),
    ...cols.map((k) => h("td", { class: "num" }, fmt(c.score[k])))));
  const backends = (found.backends as Json[]).map((b) => `${b.name}: ${b.candidates ?? 0} in ${(b.elapsed_ms ?? 0).toFixed?.(1) ?? b.elapsed_ms} ms`).join(" · ");
  return h("section", { class: "card" }, h("h2", {}, "Score breakdown"),
    h("p", { class: "hint" }, `Terms: ${(found.terms as string[]).join(", ") || "—"}. ${backends}`),
    h("div", { class: "scroll" }, h("table", { class: "breakdown" },
      h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "Memory"), ...cols.map(label))),
      h("tbody", {}, ...rows))),
    found.candidates.length > shown.length ? h("p", { class: "hint" }, `${found.candidates.length - shown.length} more candidates with lower scores are not shown.`) : "");
}

// ---- Relation graph ----
async function renderGraph(): Promise<void> {
  const current = turn();
  const graph = await call("cortex_app_graph");
  if (!current()) return;
  clear(main);
  if (!(graph.nodes as string[]).length) {
    main.append(h("p", { class: "empty" }, "No relations yet: they appear as cortex extracts who and what your memories connect."));
    return;
  }
  const side = h("section", { class: "card entity" }, h("p", { class: "hint" }, "Click an entity to see its memories."));
  const open = (entity: string) => void guarded(async () => {
    const around = await call("cortex_app_graph", { entity });
    clear(side);
    side.append(h("h2", {}, entity), h("ul", {}, ...(around.edges as Json[]).map((e) => {
      const memory = e.source_memory_id ? around.memories[e.source_memory_id] : null;
      const item = h("li", { class: e.valid_to ? "ended" : "" }, `${e.subject} —${edgeLabel(e as Edge)}→ ${e.object}`, memory ? h("div", { class: "hint" }, memory.content) : "");
      if (memory) item.addEventListener("click", () => void guarded(() => renderDetail(memory.id)));
      return item;
    })));
  });
  main.append(h("div", { class: "graph" }, drawGraph(graph.nodes, graph.edges, open), side));
}

// ---- Lifecycle: preview, run, history ----
async function renderLifecycle(): Promise<void> {
  turn();
  clear(main);
  const outcome = h("div");
  const act = (action: "preview" | "run") => void guarded(async () => {
    say(action === "preview" ? "Previewing…" : "Running…");
    const report = await call("cortex_lifecycle", { action });
    clear(outcome);
    outcome.append(lifecycleReport(action === "preview" ? "Preview of the next run" : "Run finished", report));
    say(action === "preview" ? "Nothing was changed." : "Done.");
    if (action === "run") await history();
  });
  const preview = h("button", { class: "primary", "data-action": "preview" }, "Preview next run");
  const run = h("button", { "data-action": "run" }, "Run now");
  preview.addEventListener("click", () => act("preview"));
  run.addEventListener("click", () => act("run"));
  const past = h("section", { class: "card" });
  const history = async () => {
    const log = await call("cortex_app_lifecycle_log", { limit: 10 });
    clear(past);
    past.append(h("h2", {}, "Recent runs"));
    const runs = log.runs as Json[];
    if (!runs.length) past.append(h("p", { class: "empty" }, "No run yet."));
    for (const r of runs) {
      const changes = h("div", { class: "changes" });
      const open = h("button", { class: "ghost", "data-action": "changes" }, "Before and after");
      open.addEventListener("click", () => void guarded(async () => {
        const found = await call("cortex_app_lifecycle_changes", { run_id: r.id });
        clear(changes);
        const list = found.changes as Json[];
        if (!list.length) changes.append(h("p", { class: "hint" }, "This run changed no memory you can see."));
        for (const c of list) {
          const side = (items: Json[]) => h("ul", {}, ...items.map((m) => {
            const li = h("li", { "data-id": m.id }, h("span", { class: `badge layer-${m.layer}` }, m.layer), " ", m.content);
            li.addEventListener("click", () => void guarded(() => renderDetail(m.id)));
            return li;
          }));
          changes.append(h("div", { class: "change card" },
            h("h3", {}, `${c.action}${c.by ? ` (${c.by})` : ""}`),
            h("div", { class: "columns" },
              h("section", {}, h("h4", {}, "Before"), side(c.before as Json[])),
              h("section", {}, h("h4", {}, "After"), side(c.after as Json[])))));
        }
      }));
      past.append(h("details", {}, h("summary", {}, `${when(r.started_at)} · ${r.status}`),
        r.report ? lifecycleReport("", r.report) : h("p", {}, r.error ?? ""), open, changes));
    }
  };
  main.append(h("div", { class: "actions" }, preview, run), outcome, past);
  await history();
}

function lifecycleReport(title: string, report: Json): HTMLElement {
  const phases = ["promoted", "merged", "expired", "archived", "compressed", "skipped"];
  const counts = phases.map((p) => [p, report[p]?.count ?? 0] as [string, number]);
  const ids = (phase: string) => ((report[phase]?.first ?? []) as unknown[]).filter((x): x is string => typeof x === "string");
  const cell = (phase: string, n: number) => {
    const dd = h("dd", { "data-phase": phase }, String(n));
    for (const id of ids(phase)) {
      const chip = h("button", { class: "chip", title: "Open this memory" }, id.slice(-8));
      chip.addEventListener("click", () => void guarded(() => renderDetail(id)));
      dd.append(" ", chip);
    }
    return dd;
  };
  return h("section", { class: "card report" }, title ? h("h2", {}, title) : "",
    h("dl", { class: "counts" }, ...counts.flatMap(([k, v]) => [h("dt", {}, k), cell(k, v)])),
    h("p", { class: "hint" }, `Profiles refreshed: ${(report.profiles ?? []).length} · decay scores updated: ${report.decay_scores_updated ?? 0} · LLM calls: ${report.llm_calls ?? 0}`));
}

// ---- Statistics ----
async function renderStats(): Promise<void> {
  const current = turn();
  const s = await call("cortex_app_stats");
  if (!current()) return;
  clear(main);
  const layerTotals = LAYERS.map((l) => [l, s.layers[l]?.total ?? 0] as [string, number]);
  const categories: Record<string, number> = {};
  for (const l of Object.values(s.layers) as Json[]) for (const [c, n] of Object.entries(l.categories)) categories[c] = (categories[c] ?? 0) + (n as number);
  const lat = s.recall_latency_ms;
  const llm = s.providers.llm, emb = s.providers.embedding;
  const cost = (p: Json) => (p?.estimated_cost_usd ?? 0);
  main.append(h("div", { class: "grid" },
    h("section", { class: "card" }, h("h2", {}, "Memories by layer"), bars(layerTotals)),
    h("section", { class: "card" }, h("h2", {}, "By category"), bars(Object.entries(categories).sort((a, b) => b[1] - a[1]))),
    h("section", { class: "card" }, h("h2", {}, "State"), bars(Object.entries(s.states) as [string, number][])),
    h("section", { class: "card" }, h("h2", {}, "Made per day (30 days)"), bars((s.created_per_day as Json[]).map((d) => [d.day.slice(5), d.count]))),
    h("section", { class: "card" }, h("h2", {}, "Recall latency"),
      h("dl", { class: "counts" }, ...["p50", "p95", "p99"].flatMap((p) => [h("dt", {}, p), h("dd", {}, lat[p] == null ? "—" : `${lat[p]} ms`)])),
      h("p", { class: "hint" }, `${lat.count} recalls since the server started`)),
    h("section", { class: "card" }, h("h2", {}, "Providers and storage"),
      h("dl", { class: "counts" },
        h("dt", {}, "LLM"), h("dd", {}, `${llm?.provider ?? "none"} · ${llm?.calls ?? 0} calls · $${cost(llm).toFixed(4)}`),
        h("dt", {}, "Embeddings"), h("dd", {}, `${emb?.provider ?? "none"} · ${emb?.calls ?? 0} calls · $${cost(emb).toFixed(4)}`),
        h("dt", {}, "Database"), h("dd", {}, `${(s.storage.size_bytes / 1024).toFixed(0)} KiB (${s.storage.driver})`),
        h("dt", {}, "Next lifecycle"), h("dd", {}, s.lifecycle.next_run ? when(s.lifecycle.next_run) : "—")))));
}

// ---- Profile: the user's own words ----
async function renderProfile(): Promise<void> {
  const current = turn();
  const s = await call("cortex_app_stats");
  if (!current()) return;
  clear(main);
  const words = h("textarea", { name: "own_words", rows: "6", placeholder: "What you want cortex to know about you, in your own words." }) as HTMLTextAreaElement;
  words.value = s.profile.own_words ?? "";
  const save = h("button", { class: "primary", "data-action": "save-profile" }, "Save");
  save.addEventListener("click", () => void guarded(async () => {
    await call("cortex_profile", { content: words.value });
    await renderProfile();
    say("Profile saved.");
  }));
  main.append(h("section", { class: "card" }, h("h2", {}, "In your own words"), words, h("div", { class: "actions" }, save)),
    h("section", { class: "card" }, h("h2", {}, "Profile as agents see it"), h("pre", { class: "raw" }, s.profile.content ?? "No profile yet.")));
}

async function renderLog(): Promise<void> {
  const current = turn();
  const found = await call("cortex_app_exchanges", { limit: 20 });
  if (!current()) return;
  clear(main);
  const exchanges = found.exchanges as Json[];
  if (!exchanges.length) {
    main.append(h("p", { class: "empty" }, "Nothing logged yet: cortex_ingest and cortex_flush keep what was said here."));
    return;
  }
  for (const exchange of exchanges) {
    const said = h("ul", { class: "said" }, ...(exchange.messages as Json[]).map((m) =>
      h("li", {}, h("span", { class: "badge" }, m.role), " ", m.content)));
    const memories = exchange.memories as Json[];
    const stored = memories.length
      ? h("ul", { class: "stored" }, ...memories.map((m) => {
          const why = m.supersedes ? ` (replaced ${String(m.supersedes.id).slice(-8)}: ${m.supersedes.rule})` : "";
          const item = h("li", { "data-id": m.id },
            h("span", { class: "badge" }, m.channel ?? "?"), " ",
            h("span", { class: `badge state-${m.state}` }, m.state), " ", m.content, why);
          item.addEventListener("click", () => void guarded(() => renderDetail(m.id)));
          return item;
        }))
      : h("p", { class: "hint" }, "No memory was extracted from this exchange.");
    main.append(h("section", { class: "card exchange", "data-exchange": exchange.exchange_id },
      h("h2", {}, `${when(exchange.created_at)} · ${exchange.origin}${exchange.session_id ? ` · ${exchange.session_id}` : ""}`),
      said, h("h3", {}, "Stored"), stored));
  }
}

const RENDER: Record<View, () => Promise<void>> = {
  memories: renderMemories, search: renderSearch, graph: renderGraph, lifecycle: renderLifecycle,
  stats: renderStats, profile: renderProfile, log: renderLog,
};

function follow(context: McpUiHostContext): void {
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
}

app.onhostcontextchanged = (context) => follow(context);
app.ontoolinput = (params) => {
  const args = (params.arguments ?? {}) as Json;
  if (typeof args.agent_id === "string" && args.agent_id !== state.agent) {
    state.agent = args.agent_id;
    if (!args.memory_id && !args.query) show(state.view);
  }
  if (typeof args.memory_id === "string" && args.memory_id) void guarded(() => renderDetail(args.memory_id));
  else if (typeof args.query === "string" && args.query.trim()) { state.query = args.query; show("search"); }
};
app.onteardown = async () => ({});

await app.connect();
const context = app.getHostContext();
if (context) follow(context);
show("memories");
