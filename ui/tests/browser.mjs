// Drives the memory browser in Debian's Chromium through the `cortex-mcp browse` host page:
// the official AppBridge and MCP client talking to a real cortex-mcp over streamable HTTP.
// Usage: node tests/browser.mjs <page url> <screenshot dir>. Prints one JSON report on stdout;
// tests/test_browser_ui.py asserts on it and on the database afterwards.
import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const [url, shots] = process.argv.slice(2);
const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const origin = new URL(url).origin;
mkdirSync(shots, { recursive: true });
const report = { outside_requests: [], steps: {} };

const browser = await chromium.launch({
  executablePath,
  args: [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
  ],
});

async function open(options, address = url, ready = "table.memories tbody tr") {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  page.on("request", (r) => {
    const target = r.url();
    if (!target.startsWith(origin) && !target.startsWith("data:") && !target.startsWith("about:")) {
      report.outside_requests.push(target);
    }
  });
  page.on("pageerror", (err) => (report.page_errors ??= []).push(String(err)));
  page.setDefaultTimeout(15000);
  await page.goto(address);
  await page.waitForSelector("body[data-ready='true']");
  const app = page.frameLocator("iframe");
  await app.locator(ready).first().waitFor();
  return { page, app, context };
}

async function shot(page, name) {
  // The host sizes the iframe to the app's height (ui/notifications/size-changed): wait for it.
  const frame = page.locator("iframe");
  const inner = page.frameLocator("iframe").locator("html");
  for (let i = 0; i < 40; i++) {
    const want = Math.max(480, Math.ceil(await inner.evaluate((e) => e.getBoundingClientRect().height)));
    const have = Math.round((await frame.boundingBox()).height);
    if (Math.abs(have - want) <= 2) break;
    await page.waitForTimeout(50);
  }
  // A full-page capture does not repaint the out-of-process iframe below the first screen:
  // grow the window to the page instead, then take the picture.
  const size = page.viewportSize();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: size.width, height: Math.max(size.height, height) });
  await page.waitForTimeout(200);
  await page.screenshot({ path: join(shots, `${name}.png`) });
  await page.setViewportSize(size);
}

const status = (app) => app.locator(".status");

try {
  const { page, app } = await open({ viewport: { width: 1100, height: 820 }, colorScheme: "light" });

  // Memories: a table with paging.
  const rows = app.locator("table.memories tbody tr");
  report.steps.first_page_rows = await rows.count();
  await shot(page, "memories");
  await app.locator("[data-action='next']").click();
  await app.locator(".pager span", { hasText: "Page 2" }).waitFor();
  report.steps.second_page_rows = await rows.count();
  await app.locator("[data-action='prev']").click();
  await app.locator(".pager span", { hasText: "Page 1" }).waitFor();
  await app.locator("select[name='layer']").selectOption("working");
  await app.locator(".pager span", { hasText: "Page 1" }).waitFor();
  await page.waitForTimeout(200);
  report.steps.working_rows = await rows.count();
  await app.locator("select[name='layer']").selectOption("");
  await app.locator("[data-action='display']").click();
  await app.locator("ol.timeline li.event").first().waitFor();
  report.steps.timeline_days = await app.locator("ol.timeline li.day").count();
  await shot(page, "timeline");
  await app.locator("[data-action='display']").click();

  // One memory: the chain, an edit, forget and restore.
  await rows.filter({ hasText: "Dr. Chen" }).first().click();
  await app.locator("ol.chain li.link").first().waitFor();
  report.steps.chain = await app.locator("ol.chain li.link").allInnerTexts();
  await shot(page, "detail");
  await app.locator("textarea[name='content']").fill("The user's dentist is Dr. Chen on Elm Street");
  await app.locator("input[name='importance']").fill("0.95");
  await app.locator("[data-action='save']").click();
  await status(app).filter({ hasText: "Saved." }).waitFor();
  report.steps.edited = await app.locator("textarea[name='content']").inputValue();
  await app.locator("[data-action='forget']").click();
  await status(app).filter({ hasText: "Forgotten" }).waitFor();
  report.steps.after_forget = await app.locator(".detail .meta .badge").nth(1).innerText();
  await app.locator("[data-action='restore']").click();
  await status(app).filter({ hasText: "Restored." }).waitFor();
  report.steps.after_restore = await app.locator(".detail .meta .badge").nth(1).innerText();
  // The replaced memory in the chain has its own Restore button.
  await app.locator("ol.chain li.link.state-superseded [data-action='restore-link']").click();
  await status(app).filter({ hasText: "Restored: it is live again" }).waitFor();
  await app.locator("ol.chain li.link.state-superseded").waitFor({ state: "detached" });
  report.steps.chain_after_restore = await app.locator("ol.chain li.link .badge").allInnerTexts();

  // An episode: goal, outcome and its tool calls, the failure and what was decided.
  await app.locator("button[data-view='memories']").click();
  await rows.filter({ hasText: "Episode:" }).first().click();
  await app.locator(".episode ol.steps li").first().waitFor();
  report.steps.episode = await app.locator(".episode").innerText();
  await shot(page, "episode");

  // Search: three rankings side by side and the score breakdown.
  await app.locator("button[data-view='search']").click();
  await app.locator("input[name='query']").fill("orchestra cello");
  await app.locator("[data-action='search']").click();
  await app.locator("table.breakdown tbody tr").first().waitFor();
  report.steps.bm25_first = await app.locator("[data-ranking='BM25'] li").first().innerText();
  report.steps.hybrid_first = await app.locator("[data-ranking='Hybrid'] li").first().innerText();
  report.steps.breakdown_rows = await app.locator("table.breakdown tbody tr").count();
  report.steps.breakdown_header = await app.locator("table.breakdown thead").innerText();
  await shot(page, "search");

  // The relation graph: click an entity to see its memories.
  await app.locator("button[data-view='graph']").click();
  await app.locator("g.node").first().waitFor();
  report.steps.graph_nodes = await app.locator("g.node").count();
  report.steps.ended_edges = await app.locator("line.edge.ended").count();
  report.steps.ended_labels = await app.locator("text.edge-label.ended").allTextContents();
  await app.locator("g.node[data-entity='Alice']").click();
  await app.locator(".entity li").first().waitFor();
  report.steps.entity = await app.locator(".entity").innerText();
  await shot(page, "graph");

  // Lifecycle: preview the next run.
  await app.locator("button[data-view='lifecycle']").click();
  await app.locator("[data-action='preview']").click();
  await status(app).filter({ hasText: "Nothing was changed." }).waitFor();
  report.steps.preview = await app.locator(".report").first().innerText();
  await shot(page, "lifecycle");
  await app.locator("[data-action='run']").click();
  await status(app).filter({ hasText: "Done." }).waitFor();
  await app.locator("details summary").first().click();
  await app.locator("[data-action='changes']").first().click();
  await app.locator(".changes .change, .changes .hint").first().waitFor();
  report.steps.changes = await app.locator(".changes").first().innerText();

  // Statistics and the profile.
  await app.locator("button[data-view='stats']").click();
  await app.locator("ul.bars").first().waitFor();
  report.steps.stats = await app.locator(".grid").innerText();
  await shot(page, "stats");
  await app.locator("button[data-view='profile']").click();
  await app.locator("textarea[name='own_words']").fill("I am a cellist who lives in Lisbon.");
  await app.locator("[data-action='save-profile']").click();
  await status(app).filter({ hasText: "Profile saved." }).waitFor();
  report.steps.own_words = await app.locator("textarea[name='own_words']").inputValue();

  // The extraction log: what was said, and what each channel stored from it.
  await app.locator("button[data-view='log']").click();
  await app.locator(".exchange").first().waitFor();
  report.steps.log = await app.locator(".exchange").first().innerText();
  await shot(page, "log");

  // Purge: two clicks erase a memory for good.
  await app.locator("button[data-view='memories']").click();
  await app.locator("table.memories tbody tr").filter({ hasText: "rehearses on Tuesdays" }).first().click();
  await app.locator("[data-action='purge']").click();
  report.steps.purge_armed = await app.locator("[data-action='purge']").innerText();
  await app.locator("[data-action='purge']").click();
  await status(app).filter({ hasText: "Purged" }).waitFor();
  await app.locator("table.memories tbody tr").first().waitFor();
  report.steps.after_purge = await app.locator("table.memories").innerText();

  // The host's theme: dark, followed by the app.
  await page.locator("#theme").click();
  await app.locator("button[data-view='memories']").click();
  await app.locator("table.memories tbody tr").first().waitFor();
  await page.waitForTimeout(100);
  report.steps.app_theme = await app.locator("html").getAttribute("data-theme");
  await shot(page, "memories-dark");
  await app.locator("button[data-view='search']").click();
  await app.locator("table.breakdown tbody tr").first().waitFor();
  await shot(page, "search-dark");
  await page.context().close();

  // Narrow: a phone-width window.
  const narrow = await open({ viewport: { width: 390, height: 820 }, colorScheme: "dark" });
  report.steps.narrow_overflow = await narrow.app.locator("body").evaluate(
    (body) => body.scrollWidth > document.documentElement.clientWidth + 1,
  );
  await shot(narrow.page, "memories-narrow");
  await narrow.app.locator("table.memories tbody tr").first().click();
  await narrow.app.locator("ol.chain").waitFor();
  await shot(narrow.page, "detail-narrow");
  await narrow.context.close();

  // Another agent, opened by cortex_browse with agent_id, sees none of the default agent's.
  const other = await open({ viewport: { width: 900, height: 700 } }, `${url}&agent=beta`, ".empty");
  report.steps.other_agent = await other.app.locator("main").innerText();
  await other.context.close();
  report.ok = true;
} catch (err) {
  report.ok = false;
  report.error = String(err?.stack ?? err);
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(report));
