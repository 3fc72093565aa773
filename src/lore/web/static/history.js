// Lore's history view (#history): repositories, a file's timeline on both layers, churn and
// hotspot charts (both counted up to the as-of date), and the "why" box. The repository and file
// shown live in the address (#history/REPO/path/to/file, each part percent-encoded), so a reload
// or a shared link opens the same file and back/forward step through what was looked at. Everything a repository or a model wrote is data: it is only
// ever set with textContent, never parsed as HTML, and links are made only for http(s) addresses.
// Calls go through the shell's token-carrying `window.lore.api` (app.js).
"use strict";

(() => {
  const KINDS = { commit: "commit", pr: "pull request", issue: "issue", decision: "decision" };
  const hs = { repos: [], repo: null, file: null, asOf: "", loaded: false, generation: 0 };

  // -- small helpers -----------------------------------------------------------------------
  const $ = (selector) => document.querySelector(selector);

  const { el, svg, button } = window.lore;  // the shell's DOM helpers (app.js): textContent only

  function outLink(url, label) {
    if (typeof url !== "string" || !/^https?:\/\//i.test(url)) return null;
    const a = el("a", label);
    a.href = url;
    a.rel = "noopener noreferrer";
    a.target = "_blank";
    return a;
  }

  // Dates are stored in UTC and shown in UTC, the same clock as the as-of day.
  const DAY = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
  const MINUTE = new Intl.DateTimeFormat("en-GB", {
    day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", timeZone: "UTC",
  });

  function day(iso) {
    return iso ? DAY.format(new Date(iso)) : "";
  }

  function moment(iso) {
    return iso ? MINUTE.format(new Date(iso)) + " UTC" : "";
  }

  function time(iso, withTime) {
    const node = el("time", withTime ? moment(iso) : day(iso));
    if (iso) node.dateTime = iso;
    return node;
  }

  function count(n, one, many) {
    return `${n} ${n === 1 ? one : many || one + "s"}`;
  }

  function say(message, isError = false) {
    window.lore.say(message, isError);
  }

  function call(path, opts) {
    return window.lore.api("/history" + path, opts);
  }

  function query(params) {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) {
      if (value !== null && value !== undefined && value !== "") search.set(key, value);
    }
    return "?" + search.toString();
  }

  // The page sends the end of the chosen day: "as of 19 Nov" includes what happened that day.
  function asOfParam() {
    return hs.asOf ? hs.asOf + "T23:59:59Z" : null;
  }

  // An evidence unit or timeline entry as an element id: `commit:abc` -> `tl-commit-abc`.
  function entryId(kind, key) {
    return "tl-" + kind + "-" + String(key).replace(/[^A-Za-z0-9_-]/g, "_");
  }

  // -- the address ---------------------------------------------------------------------------
  // The repository is one part (its name may hold "/", encoded as %2F); the file is the rest,
  // each of its folders encoded on its own so the address still reads as a path.
  function address(repo, file) {
    const parts = [encodeURIComponent(repo)];
    if (file) parts.push(...file.split("/").map(encodeURIComponent));
    return "#history/" + parts.join("/");
  }

  function parseAddress(rest) {
    const [repo, ...path] = (rest || "").split("/");
    try {
      return { repo: decodeURIComponent(repo || ""), file: path.map(decodeURIComponent).join("/") };
    } catch (err) {
      return { repo: "", file: "" }; // a hand-made address with a broken %-escape: start over
    }
  }

  // A choice on the page is a new address (a step back/forward can return to); the shell's
  // hashchange then calls `open`, which shows it.
  function go(repo, file) {
    const hash = address(repo, file);
    if (location.hash !== hash) location.hash = hash;
  }

  // -- repositories --------------------------------------------------------------------------
  async function loadRepos() {
    hs.repos = await call("/repos");
    const list = $("#history-repos");
    list.replaceChildren();
    $("#history-no-repos").hidden = hs.repos.length > 0;
    for (const repo of hs.repos) {
      const item = el("li", null, "project-item");
      item.dataset.repo = repo.repo;
      const a = el("a", repo.repo, "project-link");
      a.href = address(repo.repo);
      item.append(a);
      item.append(el("p", `${count(repo.commits, "commit")} · ${count(repo.decisions, "decision")}`, "muted small"));
      item.append(el("p", `${day(repo.first_commit_at)} – ${day(repo.last_commit_at)}`, "muted small"));
      list.append(item);
    }
  }

  // The PRs and issues counted are every one the history knows (named by a commit subject or
  // read from GitHub), the same ones a file's timeline lists; how many of them had their
  // GitHub thread read is said apart.
  function repoSummary(repo) {
    const where = [repo.github, repo.path].filter(Boolean).join(" · ");
    const known = repo.prs + repo.issues;
    const fetched = Object.values(repo.items_fetched).reduce((a, b) => a + b, 0);
    const threads = known && fetched < known ? ` (${fetched} of them read from GitHub)` : "";
    return `${where} — ` +
      [count(repo.commits, "commit"), count(repo.prs, "PR"), count(repo.issues, "issue") + threads,
        count(repo.decisions, "decision")].join(", ") +
      (repo.complete ? "" : " (an ingest is under way or was cut short)");
  }

  async function chooseRepo(repo) {
    hs.repo = repo;
    hs.file = null;
    for (const item of document.querySelectorAll("#history-repos li")) {
      item.classList.toggle("current", item.dataset.repo === repo.repo);
    }
    $("#history-view").hidden = false;
    $("#history-repo-name").textContent = repo.repo;
    $("#history-repo-meta").textContent = repoSummary(repo);
    $("#history-timeline-box").hidden = true;
    $("#history-why-result").hidden = true;
    $("#history-file").value = "";
    await Promise.all([renderCharts(), searchFiles("")]);
  }

  // -- charts --------------------------------------------------------------------------------
  async function renderCharts() {
    const repo = hs.repo.repo;
    const asOf = asOfParam();
    const [churn, hot] = await Promise.all([
      call("/churn" + query({ repo, n: 10, as_of: asOf })),
      call("/hotspots" + query({ repo, days: 90, n: 10, as_of: asOf })),
    ]);
    if (!hs.repo || hs.repo.repo !== repo || asOfParam() !== asOf) return; // chosen again meanwhile
    $("#history-churn-caption").textContent =
      "Churn: lines added and removed per file" + (asOf ? `, up to ${day(asOf)}` : "");
    barChart($("#history-churn"), churn.files, "churn", (f) => `${f.churn} lines (+${f.added} −${f.removed}) in ${f.commits} commits`);
    $("#history-hotspots-caption").textContent =
      `Hotspots: changes per file from ${day(hot.window_start)} to ${day(hot.window_end)}`;
    barChart($("#history-hotspots"), hot.files, "changes", (f) => `${f.changes} changes, ${f.churn} lines`);
  }

  // A horizontal bar per file, drawn as SVG (no library): one <rect class="bar"> per row.
  // The layout is measured, not guessed: the label column is as wide as the widest label (a
  // path longer than half the chart keeps its end, the file's name, behind a leading "…"), and
  // the space after the longest bar is as wide as the widest value, so every text lies inside
  // the chart. Widths are measured at the chart's own font (svg.chart in history.css) in the
  // viewBox's units, which the SVG then scales as a whole; a canvas measures them even while
  // the view is hidden.
  const CHART = { width: 460, row: 24, edge: 4, gap: 8 };
  const measurer = document.createElement("canvas").getContext("2d");

  function textMeter(node) {
    const style = getComputedStyle(node);
    measurer.font = `${style.fontSize} ${style.fontFamily}`;
    return (text) => Math.ceil(measurer.measureText(text).width) + 1;
  }

  // The longest end of `path` that fits in `room`, behind "…" when it had to be cut.
  function fitLabel(path, room, measure) {
    if (measure(path) <= room) return path;
    let lo = 0, hi = path.length;  // the fewest characters to drop so that it fits
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (measure("…" + path.slice(mid)) <= room) hi = mid;
      else lo = mid + 1;
    }
    return "…" + path.slice(lo);
  }

  function barChart(node, rows, field, describe) {
    const { width, row, edge, gap } = CHART;
    const height = Math.max(row, rows.length * row);
    node.replaceChildren();
    node.setAttribute("viewBox", `0 0 ${width} ${height}`);
    if (!rows.length) {
      node.append(svg("text", { x: edge, y: 16, class: "chart-empty" }, "no changes in this window"));
      return;
    }
    const measure = textMeter(node);
    const labels = rows.map((r) => fitLabel(r.path, width / 2, measure));
    const labelRight = edge + Math.max(...labels.map(measure));
    const barLeft = labelRight + gap;
    const valueRoom = Math.max(...rows.map((r) => measure(String(r[field]))));
    const barSpace = Math.max(1, width - edge - valueRoom - gap / 2 - barLeft);
    const top = Math.max(...rows.map((r) => r[field]), 1);
    rows.forEach((r, i) => {
      const y = i * row;
      const group = svg("g", { class: "chart-row" });
      group.append(svg("title", {}, `${r.path}: ${describe(r)}`));
      group.append(svg("text", { x: labelRight, y: y + 16, class: "chart-label", "text-anchor": "end" }, labels[i]));
      const w = Math.max(2, Math.round((r[field] / top) * barSpace));
      const bar = svg("rect", { x: barLeft, y: y + 4, width: w, height: row - 8, rx: 2, class: "bar" });
      bar.dataset.path = r.path;
      bar.dataset.value = String(r[field]);
      group.append(bar);
      group.append(svg("text", { x: barLeft + w + gap / 2, y: y + 16, class: "chart-value" }, r[field]));
      group.addEventListener("click", () => go(hs.repo.repo, r.path));
      node.append(group);
    });
  }

  // -- the file picker -----------------------------------------------------------------------
  // The matches are redrawn only when they change, and never under a press: a reply arriving
  // between a press on a match and its release waits for the release (the list says so in
  // `data-waiting`), so the click lands on the button that was pressed. A match that stays is
  // the same element (a focused one keeps its focus), and a click is read from the button's
  // own `data-path`. Replies are applied in the order the searches were asked: the reply to an
  // older search, arriving late, is dropped. `data-query` says which search the list shows.
  const picker = { asked: 0, pressed: false, waiting: null, timer: null };

  async function searchFiles(text) {
    const repo = hs.repo.repo;
    const asked = ++picker.asked;
    const found = await call("/files" + query({ repo, q: text, limit: 12 }));
    if (asked !== picker.asked || !hs.repo || hs.repo.repo !== repo) return; // asked again since
    showMatches({ repo, text, paths: found.map((f) => f.path) });
  }

  function showMatches(matches) {
    const list = $("#history-file-matches");
    if (picker.pressed) {
      picker.waiting = matches;
      list.dataset.waiting = matches.text;
      return;
    }
    picker.waiting = null;
    delete list.dataset.waiting;
    list.dataset.repo = matches.repo;
    list.dataset.query = matches.text;
    const kept = new Map([...list.querySelectorAll("button.file-choice")].map((b) => [b.dataset.path, b.parentNode]));
    const items = matches.paths.map((path) => kept.get(path) || matchItem(path));
    if (!items.length) items.push(el("li", "no file of the history matches", "muted small"));
    // remove what goes, then put each item in its place: one already there is not moved
    const wanted = new Set(items);
    for (const child of [...list.children]) if (!wanted.has(child)) child.remove();
    items.forEach((item, i) => {
      if (list.children[i] !== item) list.insertBefore(item, list.children[i] || null);
    });
  }

  function matchItem(path) {
    const item = el("li");
    const choice = el("button", path, "file-choice");
    choice.type = "button";
    choice.dataset.path = path;
    item.append(choice);
    return item;
  }

  function onMatchClick(event) {
    const list = event.currentTarget;
    const choice = event.target.closest("button.file-choice");
    if (choice && list.contains(choice)) go(list.dataset.repo, choice.dataset.path);
  }

  function onPressEnd() {
    if (!picker.pressed) return;
    picker.pressed = false;
    // after this release's click, which the browser dispatches in the same task
    setTimeout(() => {
      if (!picker.pressed && picker.waiting) showMatches(picker.waiting);
    }, 0);
  }

  function onFileInput(event) {
    clearTimeout(picker.timer);
    const text = event.target.value;
    picker.timer = setTimeout(() => searchFiles(text).catch((err) => say(err.message, true)), 150);
  }

  // -- the timeline --------------------------------------------------------------------------
  async function showFile(path) {
    hs.file = path;
    $("#history-file").value = path;
    await renderTimeline();
  }

  async function renderTimeline() {
    if (!hs.file) return;
    const generation = ++hs.generation;
    const data = await call("/timeline" + query({ repo: hs.repo.repo, path: hs.file, as_of: asOfParam() }));
    if (generation !== hs.generation) return;
    hs.file = data.file;
    const canonical = address(hs.repo.repo, data.file); // a unique end given: the full path
    if (location.hash !== canonical) history.replaceState(null, "", canonical);
    $("#history-timeline-box").hidden = false;
    $("#history-timeline-title").textContent = data.file;
    const c = data.counts;
    $("#history-timeline-counts").textContent =
      [count(c.commit, "commit"), count(c.pr, "pull request"), count(c.issue, "issue"), count(c.decision, "decision")].join(", ") +
      (c.superseded ? ` (${c.superseded} superseded)` : "") +
      (data.as_of ? ` — as of ${day(data.as_of)}` : "") +
      (data.fate.status === "renamed" ? ` — renamed to ${data.fate.to}` : "") +
      (data.fate.status === "deleted" ? " — deleted" : "");
    const items = [
      ...data.entries.map((e) => ({ at: e.at, node: entryItem(e) })),
      ...data.decisions.map((d) => ({ at: d.valid_from, node: decisionItem(d) })),
    ];
    items.sort((a, b) => (b.at || "").localeCompare(a.at || ""));
    $("#history-timeline").replaceChildren(...items.map((i) => i.node));
  }

  function entryItem(e) {
    const item = el("li", null, "tl-entry tl-" + e.kind);
    item.id = entryId(e.kind, e.key);
    item.dataset.kind = e.kind;
    item.dataset.key = e.key;
    const head = el("div", null, "tl-head");
    head.append(el("span", KINDS[e.kind] || e.kind, "badge kind"));
    if (e.kind === "commit") {
      head.append(el("code", e.sha.slice(0, 10)));
      head.append(el("strong", e.label));
    } else {
      head.append(el("strong", `#${e.number} ${e.title || e.label}`));
      if (e.state) head.append(el("span", e.state, "muted small"));
    }
    head.append(time(e.at, e.kind === "commit"));
    item.append(head);
    const meta = [];
    if (e.author) meta.push(e.author + (e.bot ? " (bot)" : ""));
    if (e.kind === "commit") {
      meta.push(`${e.how || "changed"} ${e.path || ""}`.trim());
      if (e.added !== undefined) meta.push(`+${e.added} −${e.removed} here`);
      if (e.old_path) meta.push(`from ${e.old_path}`);
      if (e.pr) meta.push(`PR #${e.pr}`);
    }
    if (meta.length) item.append(el("p", meta.join(" · "), "muted small"));
    if (e.body) item.append(el("p", e.body, "tl-body"));
    return item;
  }

  function decisionItem(d) {
    const item = el("li", null, "tl-entry tl-decision" + (d.in_force ? "" : " superseded"));
    item.id = entryId("decision", d.id);
    item.dataset.kind = "decision";
    item.dataset.key = String(d.id);
    const head = el("div", null, "tl-head");
    head.append(el("span", "decision", "badge kind"));
    const statement = el(d.in_force ? "strong" : "s", d.statement, "statement");
    head.append(statement);
    head.append(el("span", d.in_force ? "in force" : "superseded", "badge " + (d.in_force ? "active" : "pending")));
    item.append(head);
    const quote = el("blockquote", d.quote, "tl-quote");
    item.append(quote);
    const source = d.item_number ? `#${d.item_number}` : `commit ${(d.commit_sha || "").slice(0, 10)}`;
    const said = el("p", `${d.speaker} (${d.speaker_role}) in ${source}`, "muted small");
    const link = outLink(d.source_url, "source");
    if (link) said.append(" · ", link);
    item.append(said);
    if (d.rationale) item.append(el("p", d.rationale, "small"));
    const valid = el("p", null, "small valid");
    valid.append("valid from ", time(d.valid_from), d.valid_to ? " until " : " — still in force", ...(d.valid_to ? [time(d.valid_to)] : []));
    item.append(valid);
    if (!d.in_force) {
      const ended = el("p", null, "small superseded-by");
      ended.append(
        "Superseded on ", time(d.superseded_at),
        ` by decision ${d.superseded_by}: “${d.superseded_by_statement || ""}”`,
      );
      item.append(ended);
      if (d.supersede_reason) item.append(el("p", "Why: " + d.supersede_reason, "small superseded-why"));
      if (d.supersession_id) {
        item.append(button("Undo supersession", () => undo(d), "undo"));
      }
    }
    item.append(el("p", `extracted by ${d.extracted_by}; learned ${day(d.ingested_at)}`, "muted small"));
    return item;
  }

  async function undo(d) {
    const asked = `Undo this supersession?\n\n“${d.statement}” will be in force again, unless another ` +
      "supersession still replaces it; this one is kept, marked undone.";
    if (!confirm(asked)) return;
    try {
      const row = await call(`/supersessions/${encodeURIComponent(d.supersession_id)}/undo`, {
        method: "POST", body: { repo: hs.repo.repo },
      });
      const still = row.still_superseded_by || [];
      say(still.length
        ? `Supersession ${row.id} undone; decision ${row.earlier} is still superseded by decision ${still.join(" and ")}.`
        : `Supersession ${row.id} undone: decision ${row.earlier} is in force again.`);
      await renderTimeline();
    } catch (err) {
      say(err.message, true);
    }
  }

  // -- why -----------------------------------------------------------------------------------
  async function onWhy(event) {
    event.preventDefault();
    const form = event.target;
    const question = form.elements.namedItem("question").value.trim();
    if (!question) return;
    const submit = form.querySelector('button[type="submit"]');
    submit.disabled = true;
    say("Looking for the reasons…");
    try {
      const report = await call("/why", {
        method: "POST",
        body: {
          repo: hs.repo.repo, question, as_of: asOfParam(),
          model: form.elements.namedItem("model").checked ? null : false,
        },
      });
      renderWhy(report);
      say(report.answer.length ? "Answered, every sentence citing its evidence." : "Evidence found.");
    } catch (err) {
      say(err.message, true);
    } finally {
      submit.disabled = false;
    }
  }

  function citeLink(unit, label) {
    const a = el("a", label, "cite");
    const inTimeline = document.getElementById(entryId(...splitUnit(unit)));
    const target = inTimeline ? inTimeline.id : "ev-" + unit.replace(/[^A-Za-z0-9_-]/g, "_");
    a.href = "#history";
    a.dataset.target = target;
    a.addEventListener("click", (event) => {
      event.preventDefault();
      const node = document.getElementById(target);
      if (!node) return;
      node.scrollIntoView({ block: "center" });
      node.classList.remove("flash");
      void node.offsetWidth; // restart the highlight
      node.classList.add("flash");
    });
    return a;
  }

  function splitUnit(unit) {
    const at = unit.indexOf(":");
    return [unit.slice(0, at), unit.slice(at + 1)];
  }

  function unitLabel(e) {
    if (e.kind === "commit") return `commit ${e.ref}`;
    if (e.kind === "decision") return `decision ${e.unit.split(":")[1]}`;
    const [kind, number] = splitUnit(e.unit);
    return `${kind === "pr" ? "PR" : "issue"} #${number}`;
  }

  function renderWhy(report) {
    $("#history-why-result").hidden = false;
    $("#history-why-note").textContent =
      report.note + (report.model_calls ? ` (${report.model_calls} model call, ${report.model_tokens} tokens)` : "");
    const byKey = new Map(report.evidence.map((e) => [e.key, e]));
    $("#history-why-answer").replaceChildren(...report.answer.map((s) => {
      const item = el("li", null, "why-sentence");
      item.append(el("span", s.text + " "));
      const cited = byKey.get(s.evidence);
      item.append("[", citeLink(cited ? cited.unit : s.evidence, cited ? unitLabel(cited) : s.evidence), "] ");
      item.append(el("q", s.quote, "muted"));
      if (s.superseded) item.append(el("span", ` (${s.superseded})`, "superseded-note"));
      return item;
    }));
    $("#history-why-evidence").replaceChildren(...report.evidence.map((e) => {
      const item = el("li", null, "evidence-item");
      item.id = "ev-" + e.key.replace(/[^A-Za-z0-9_-]/g, "_");
      item.dataset.unit = e.unit;
      const head = el("div", null, "tl-head");
      head.append(el("span", KINDS[e.kind] || e.kind.replace("_", " "), "badge kind"));
      head.append(el("strong", e.title));
      head.append(time(e.at));
      item.append(head);
      // the reason the source gives (never its subject again), or plainly that it gives none
      if (e.quote) {
        const quote = el("blockquote", e.quote, "tl-quote");
        if (e.reason && e.reason.in === "title") quote.append(el("span", " (in the subject)", "muted small"));
        item.append(quote);
      } else {
        item.append(el("p", "no reason stated", "muted small no-reason"));
      }
      const foot = el("p", null, "muted small");
      foot.append(e.author ? `${e.author} · ` : "", citeLink(e.unit, unitLabel(e)));
      const link = outLink(e.url, "source");
      if (link) foot.append(" · ", link);
      if (e.kind === "decision" && e.valid_to) foot.append(` · superseded on ${day(e.valid_to)}`);
      item.append(foot);
      return item;
    }));
  }

  // -- as of ---------------------------------------------------------------------------------
  async function onAsOf() {
    hs.asOf = $("#history-as-of").value;
    $("#history-asof-note").textContent = hs.asOf
      ? `Showing what held at the end of ${day(hs.asOf + "T23:59:59Z")} (UTC): later commits, ` +
        "items and decisions are left out, and a decision superseded later shows as it stood then."
      : "";
    try {
      await Promise.all([renderCharts(), renderTimeline()]);
    } catch (err) {
      say(err.message, true);
    }
  }

  // -- start ---------------------------------------------------------------------------------
  // The shell calls this each time #history becomes (or stays) the current domain, with the
  // address after "#history/". Calls run one after another: a quick back, back, forward must
  // end on the last address, not on whichever answer arrived last.
  let routing = Promise.resolve();

  function open(rest) {
    routing = routing.then(() => route(rest)).catch((err) => say(err.message, true));
    return routing;
  }

  async function route(rest) {
    if (!hs.loaded) {
      await loadRepos();
      hs.loaded = true;
    }
    if (!hs.repos.length) return;
    const want = parseAddress(rest);
    let repo = hs.repos.find((r) => r.repo === want.repo);
    if (!repo) {
      if (want.repo) say(`No ingested repository is called “${want.repo}”.`, true);
      repo = hs.repo || hs.repos[0];
      want.file = "";
    }
    if (!hs.repo || hs.repo.repo !== repo.repo) await chooseRepo(repo);
    if (want.file && want.file !== hs.file) {
      await showFile(want.file);
    } else if (!want.file && hs.file) {
      hs.file = null; // back to the repository's address: no file open
      hs.generation++;
      $("#history-timeline-box").hidden = true;
      $("#history-file").value = "";
    }
  }

  function start() {
    if (!window.lore.token()) return; // the shell shows how to get in
    $("#history-file").addEventListener("input", onFileInput);
    const matches = $("#history-file-matches");
    matches.addEventListener("click", onMatchClick);
    matches.addEventListener("pointerdown", () => { picker.pressed = true; });
    window.addEventListener("pointerup", onPressEnd, true);
    window.addEventListener("pointercancel", onPressEnd, true);
    $("#history-file-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const path = $("#history-file").value.trim();
      if (path && hs.repo) go(hs.repo.repo, path);
    });
    $("#history-as-of").addEventListener("change", onAsOf);
    $("#history-asof-now").addEventListener("click", () => {
      $("#history-as-of").value = "";
      onAsOf();
    });
    $("#history-why-form").addEventListener("submit", onWhy);
    window.lore.domain("history", open);
  }

  document.addEventListener("DOMContentLoaded", start);
})();
