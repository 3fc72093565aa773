// Lore's web app. This file holds the shell (the token, the one fetch helper, the status line,
// the domain navigation) and, below it, the rules UI. Loaded before the other domain scripts
// (books: books.js, history: history.js), which use only what `window.lore` offers:
//
//   lore.api(path, {method, body, signal, raw})  a call under /api with this run's token.
//       `body` is sent as JSON (a FormData as is); the reply's JSON comes back, or an Error
//       whose message is the server's one line. With `raw: true` the Response itself comes
//       back (for streamed replies); it is still checked for an error status first.
//   lore.token()                                 this run's token (for an XMLHttpRequest upload,
//       the one way a browser reports upload progress); send it as the X-Lore-Token header.
//   lore.say(message, isError)                   the status line at the top of the page.
//   lore.domain(name, show)                      register a domain: `show(rest)` is called each
//       time it becomes (or stays) the current one, with the rest of the hash after "#name/".
//   lore.el(tag, text, className)                a new element whose text is set with
//       textContent (never parsed as HTML); null or undefined text leaves it empty.
//   lore.svg(tag, attrs, text)                   the same for an SVG element, with attributes.
//   lore.button(label, onClick, className)       a type="button" button calling onClick.
//   lore.markCurrent(link, on)                   show a navigation link as the current page
//       (the "current" class and aria-current) or not.
//
// The current domain is the first word of the hash (#books, #history/..., #rules); the rules'
// own addresses (#/p/NAME/TAB) and an empty hash are the rules.
"use strict";

(() => {
  const TOKEN_KEY = "lore-token";
  const SVG = "http://www.w3.org/2000/svg";
  const DOMAINS = ["rules", "books", "history"];
  const shows = {};
  let token = null;

  function takeToken() {
    const params = new URLSearchParams(location.search);
    const fromUrl = params.get("token");
    if (fromUrl) {
      sessionStorage.setItem(TOKEN_KEY, fromUrl);
      // keep the token out of the address bar, history and bookmarks
      history.replaceState(null, "", location.pathname + location.hash);
    }
    return sessionStorage.getItem(TOKEN_KEY);
  }

  function errorText(data, status) {
    if (data && typeof data.error === "string") return data.error;
    if (data && Array.isArray(data.detail)) {
      return data.detail.map((d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ");
    }
    return `request failed (HTTP ${status})`;
  }

  async function api(path, opts = {}) {
    const headers = { "X-Lore-Token": token };
    let body = opts.body;
    if (body !== undefined && !(body instanceof FormData)) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(body);
    }
    const response = await fetch("/api" + path, {
      method: opts.method || "GET", headers, body, signal: opts.signal,
    });
    if (opts.raw && response.ok) return response;
    const data = await response.json().catch(() => null);
    if (!response.ok) throw new Error(errorText(data, response.status));
    return data;
  }

  function say(message, isError = false) {
    const status = document.getElementById("status");
    status.textContent = message;
    status.classList.toggle("error", isError);
  }

  function current() {
    const word = location.hash.replace(/^#\/?/, "").split("/")[0];
    const name = DOMAINS.includes(word) ? word : "rules";
    const rest = DOMAINS.includes(word) ? location.hash.replace(/^#\/?[a-z]+\/?/, "") : "";
    return { name, rest };
  }

  function show() {
    const { name, rest } = current();
    for (const d of DOMAINS) {
      document.getElementById("domain-" + d).hidden = d !== name;
    }
    for (const a of document.querySelectorAll("nav.domains a")) markCurrent(a, a.dataset.domain === name);
    document.title = "Lore · " + name;
    if (shows[name]) shows[name](rest);
  }

  function markCurrent(link, on) {
    link.classList.toggle("current", on);
    if (on) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }

  function domain(name, callback) {
    shows[name] = callback;
  }

  // the DOM helpers every domain uses: text only ever goes in through textContent
  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function button(label, onClick, className) {
    const node = el("button", label, className);
    node.type = "button";
    node.addEventListener("click", onClick);
    return node;
  }

  window.lore = { api, say, domain, token: () => token, el, svg, button, markCurrent };

  document.addEventListener("DOMContentLoaded", () => {
    token = takeToken();
    if (!token) {
      document.getElementById("no-token").hidden = false;
      return;
    }
    window.addEventListener("hashchange", show);
    // the domain scripts register on DOMContentLoaded too; show once they all have
    setTimeout(show, 0);
  });
})();

// -- the rules UI ----------------------------------------------------------------------------
// Everything a rule says is data: it is only ever set with textContent, never parsed as HTML.
// Calls go through the shell's one fetch helper above (`lore.api`), which carries the token.

const TABS = ["active", "pending", "usage", "resolve", "add"];

const state = { projects: [], project: null, tab: "active", renders: 0 };

// -- small helpers -------------------------------------------------------------------------
const $ = (selector, root = document) => root.querySelector(selector);

function api(method, path, body) {
  return window.lore.api(path, { method, body });
}

function say(message, isError = false) {
  window.lore.say(message, isError);
}

function field(form, name) {
  // form.title would be the form's own title attribute, so named inputs go through elements
  return form.elements.namedItem(name);
}

function clone(id) {
  return document.getElementById(id).content.firstElementChild.cloneNode(true);
}

const { el, button } = window.lore;

function when(seconds) {
  return seconds ? new Date(seconds * 1000).toLocaleString() : "never";
}

function projectPath(suffix = "") {
  return "/projects/" + encodeURIComponent(state.project.name) + suffix;
}

function rulePath(rule, suffix = "") {
  return projectPath("/rules/" + encodeURIComponent(rule.id) + suffix);
}

// -- navigation: #/p/NAME/TAB ---------------------------------------------------------------
function route() {
  const match = location.hash.match(/^#\/p\/([^/]+)\/(\w+)$/);
  if (!match) return { name: null, tab: "active" };
  return { name: decodeURIComponent(match[1]), tab: TABS.includes(match[2]) ? match[2] : "active" };
}

function link(name, tab) {
  return "#/p/" + encodeURIComponent(name) + "/" + tab;
}

// Renders can overlap (a click while the previous one loads); only the newest one draws.
async function render() {
  const generation = ++state.renders;
  const current = () => generation === state.renders;
  const { name, tab } = route();
  const projects = await api("GET", "/projects");
  if (!current()) return;
  state.projects = projects;
  const chosen = state.projects.find((p) => p.name === name) || state.projects[0] || null;
  state.project = chosen;
  state.tab = tab;
  renderProjects();
  $("#project-view").hidden = !chosen;
  if (!chosen) return;
  renderProjectHead();
  for (const t of TABS) $("#tab-" + t).hidden = t !== tab;
  for (const a of document.querySelectorAll(".tabs a")) {
    a.href = link(chosen.name, a.dataset.tab);
    window.lore.markCurrent(a, a.dataset.tab === tab);
  }
  if (tab === "active" || tab === "pending") await renderRules(tab, current);
  if (tab === "usage") await renderUsage(current);
}

async function refresh() {
  try {
    await render();
  } catch (err) {
    say(err.message, true);
  }
}

// -- projects and trust ---------------------------------------------------------------------
function renderProjects() {
  const list = $("#projects");
  list.replaceChildren();
  $("#no-projects").hidden = state.projects.length > 0;
  const current = state.project ? state.project.name : null;
  for (const project of state.projects) {
    const item = clone("project-item");
    item.dataset.project = project.name;
    item.classList.toggle("current", project.name === current);
    const a = $(".project-link", item);
    a.textContent = project.name;
    a.href = link(project.name, "active");
    trustChip($(".trust", item), project.trust);
    $(".reason", item).textContent = project.trust.reason;
    $(".counts", item).textContent =
      `${project.counts.active} active · ${project.counts.pending} pending · ${project.counts.auto} auto-activated`;
    for (const b of item.querySelectorAll("[data-trust]")) {
      b.addEventListener("click", () => changeTrust(project, b.dataset.trust));
    }
    list.append(item);
  }
}

function trustChip(node, trust) {
  node.textContent = trust.label;
  node.classList.remove("yours", "not-yours");
  node.classList.add(trust.yours ? "yours" : "not-yours");
  node.title = trust.reason;
}

async function changeTrust(project, action) {
  try {
    const updated = await api("POST", "/projects/" + encodeURIComponent(project.name) + "/trust", { action });
    say(`${updated.name}: ${updated.trust.label} (${updated.trust.reason})`);
    await render();
  } catch (err) {
    say(err.message, true);
  }
}

function renderProjectHead() {
  const p = state.project;
  $("#project-name").textContent = p.name;
  trustChip($("#project-trust"), p.trust);
  $("#project-path").textContent = p.path;
  $('[data-count="active"]').textContent = p.counts.active;
  $('[data-count="pending"]').textContent = p.counts.pending;
}

// -- rules ----------------------------------------------------------------------------------
async function renderRules(status, current) {
  const section = $("#tab-" + status);
  const autoOnly = status === "active" && $("#auto-only").checked;
  const rules = await api("GET", projectPath(`/rules?status=${status}&auto=${autoOnly}`));
  if (!current()) return;
  const list = $(".rules", section);
  if (status === "pending") {
    // the review queue, grouped by the file (or source) each rule came from
    list.replaceChildren(...groupByOrigin(rules).map(([origin, members]) => originGroup(origin, members)));
    $(".bulk", section).hidden = rules.length === 0;
    $(".select-all", section).checked = false;
    updateSelection();
  } else {
    list.replaceChildren(...rules.map(ruleItem));
  }
  $(".empty", section).hidden = rules.length > 0;
}

function groupByOrigin(rules) {
  const groups = new Map();
  for (const rule of rules) {
    const origin = rule.origin || rule.source;
    if (!groups.has(origin)) groups.set(origin, []);
    groups.get(origin).push(rule);
  }
  return [...groups];
}

function originGroup(origin, members) {
  const group = el("li", null, "origin-group");
  group.dataset.origin = origin;
  const head = el("div", null, "origin-head");
  const held = members.filter((r) => r.held).length;
  head.append(el("h3", "from " + origin));
  head.append(el("span", `${members.length} pending` + (held ? ` · ${held} held by the screening gate` : ""), "muted"));
  const buttons = el("div", null, "buttons");
  buttons.append(button(`Approve all ${members.length}`, () => bulk("approve", members)));
  buttons.append(button(`Reject all ${members.length}`, () => bulk("reject", members), "danger"));
  head.append(buttons);
  const list = el("ul", null, "rules");
  list.append(...members.map(ruleItem));
  group.append(head, list);
  return group;
}

function picked() {
  return [...document.querySelectorAll("#tab-pending input.pick:checked")].map((box) => box.value);
}

function updateSelection() {
  const count = picked().length;
  const section = $("#tab-pending");
  $(".selected-count", section).textContent = count ? `${count} selected` : "none selected";
  for (const b of section.querySelectorAll(".bulk [data-bulk]")) b.disabled = count === 0;
}

function onBulkBar(event) {
  const action = event.target.closest("[data-bulk]")?.dataset.bulk;
  if (action) bulk(action, picked().map((id) => ({ id, held: heldIds.has(id) })));
}

const heldIds = new Set();

async function bulk(action, rules) {
  if (!rules.length) return;
  const held = rules.filter((r) => r.held).length;
  const question = action === "reject"
    ? `Delete ${rules.length} rule(s)?`
    : `Approve ${rules.length} rule(s)?` +
      (held ? `\n\n${held} of them were held by the screening gate.` : "");
  if (!confirm(question)) return;
  try {
    const result = await api("POST", projectPath("/rules/bulk"), { action, ids: rules.map((r) => r.id) });
    say(`${result.count} rule(s) ${action === "approve" ? "approved (active)" : "rejected (deleted)"}`);
    await render();
  } catch (err) {
    say(err.message, true);
  }
}

function ruleItem(rule) {
  const item = clone("rule-item");
  item.dataset.id = rule.id;
  const title = $(".rule-title", item);
  title.textContent = rule.title;
  title.hidden = !rule.title;  // an untagged rule shows its text only, not its start twice
  const badges = $(".badges", item);
  badges.append(el("span", rule.status, "badge " + rule.status));
  if (rule.auto) badges.append(el("span", "auto-activated", "badge auto"));
  if (rule.always) badges.append(el("span", "always", "badge always"));
  if (!rule.tagged) badges.append(el("span", "untagged", "badge untagged"));
  $(".rule-text", item).textContent = rule.text;
  if (rule.status === "pending") {
    const pick = document.createElement("input");
    pick.type = "checkbox";
    pick.className = "pick";
    pick.value = rule.id;
    pick.setAttribute("aria-label", "Select " + (rule.title || rule.id));
    pick.addEventListener("change", updateSelection);
    $(".rule-head", item).prepend(pick);
    renderRisk(item, rule);
  }
  $(".scope", item).textContent = rule.scope_text;
  $(".triggers", item).textContent = rule.triggers.join(", ") || "none";
  $(".source", item).textContent = rule.source;
  $(".served", item).textContent =
    `${rule.served_count} time(s), last ${when(rule.last_served_at)}`;
  $(".rule-id", item).textContent = rule.id;
  renderAgentOutcome($(".agent", item), rule.agent);
  renderEvidence($(".evidence", item), rule.evidence);
  renderActions(item, rule);
  return item;
}

// every pending rule shows the screening gate's verdict on its text: a red badge naming what it
// reads like and the gate's reason when held, a quiet "screened" badge when it passed
function renderRisk(item, rule) {
  const risk = rule.risk;
  if (!risk) return;
  const badges = $(".badges", item);
  if (risk.verdict !== "held") {
    const passed = el("span", "screened", "badge clear");
    passed.title = risk.reason;
    badges.append(passed);
    return;
  }
  heldIds.add(rule.id);
  badges.append(el("span", "held: " + risk.family, "badge held"));
  const warn = $("p.held", item);
  warn.textContent = "The screening gate would hold this rule: " + risk.reason;
  warn.hidden = false;
}

function approve(rule) {
  const risk = rule.risk;
  if (risk && risk.verdict === "held" &&
      !confirm(`The screening gate holds this rule (${risk.family}):\n\n${risk.reason}\n\nApprove it anyway?`)) {
    say(`${rule.id} left pending`);
    return;
  }
  act(rule, "approve");
}

function renderAgentOutcome(box, outcome) {
  box.hidden = !outcome;
  if (!outcome) return;
  const what = outcome.outcome === "activated" ? "activated it" : "left it waiting";
  box.textContent = `An agent proposed it on ${when(outcome.at)}; the gate ${what}: ${outcome.reason}`;
  box.classList.toggle("waiting", outcome.outcome !== "activated");
}

function evidenceValue(key, value) {
  if (typeof value === "string" && key === "url" && /^https?:\/\//i.test(value)) {
    const a = el("a", value);
    a.href = value;
    a.rel = "noopener noreferrer";
    a.target = "_blank";
    return a;
  }
  return document.createTextNode(typeof value === "string" ? value : JSON.stringify(value));
}

function renderEvidence(box, evidence) {
  box.hidden = !evidence || evidence.length === 0;
  const list = $("ul", box);
  for (const entry of evidence || []) {
    const li = el("li");
    const fields = typeof entry === "object" && entry !== null ? Object.entries(entry) : [["", entry]];
    for (const [key, value] of fields) {
      const part = el("span", null, "field");
      if (key) part.append(el("span", key + ": ", "muted"));
      part.append(evidenceValue(key, value));
      li.append(part);
    }
    list.append(li);
  }
}

function renderActions(item, rule) {
  const actions = $(".actions", item);
  if (rule.status === "pending") actions.append(button("Approve", () => approve(rule)));
  actions.append(rule.always
    ? button("Unpin", () => act(rule, "unpin"))
    : button("Pin", () => act(rule, "pin")));
  actions.append(button("Edit", () => openEdit(item, rule)));
  if (rule.status === "active") actions.append(button("Back to pending", () => act(rule, "unapprove")));
  actions.append(button("Reject", () => {
    if (confirm(`Delete this rule?\n\n${rule.label}`)) act(rule, "reject");
  }, "danger"));
}

const DONE = {
  approve: "approved (active)", unapprove: "back to pending", reject: "rejected (deleted)",
  pin: "pinned (sent on every request)", unpin: "unpinned",
};

async function act(rule, action) {
  try {
    const result = await api("POST", rulePath(rule, "/" + action));
    say(`${result.id} ${DONE[action]}: ${result.label}`);
    await render();
  } catch (err) {
    say(err.message, true);
  }
}

function openEdit(item, rule) {
  const form = $("form.edit", item);
  field(form, "text").value = rule.text;
  field(form, "title").value = rule.title;
  field(form, "triggers").value = rule.triggers.join(", ");
  field(form, "scope").value = rule.scope.join(", ");
  form.hidden = false;
  field(form, "text").focus();
  form.onsubmit = async (event) => {
    event.preventDefault();
    const changes = changedFields(form, rule);
    if (Object.keys(changes).length === 0) {
      form.hidden = true;
      return;
    }
    try {
      const result = await api("PATCH", rulePath(rule), changes);
      say(`${result.id} saved: ${result.label}`);
      await render();
    } catch (err) {
      say(err.message, true);
    }
  };
  $("[data-cancel]", form).onclick = () => { form.hidden = true; };
}

function changedFields(form, rule) {
  const changes = {};
  const text = field(form, "text").value.trim();
  const title = field(form, "title").value.trim();
  const triggers = field(form, "triggers").value.trim();
  const scope = field(form, "scope").value.trim();
  if (text !== rule.text) changes.text = text;
  if (title !== rule.title) changes.title = title;
  if (triggers !== rule.triggers.join(", ")) changes.triggers = triggers;
  if (scope !== rule.scope.join(", ")) changes.scope = scope;
  return changes;
}

// -- usage ----------------------------------------------------------------------------------
async function renderUsage(current) {
  const usage = await api("GET", projectPath("/usage"));
  if (!current()) return;
  $("#usage-summary").textContent =
    `${usage.never_served} of ${usage.total} active rule(s) were never sent to an agent.`;
  const never = usage.rules.filter((r) => r.served === 0);
  const served = usage.rules.filter((r) => r.served > 0).sort((a, b) => b.served - a.served);
  $("#usage-never tbody").replaceChildren(...never.map((r) =>
    row([r.label, r.scope_text, r.always ? "yes" : "", r.id])));
  $("#usage-served tbody").replaceChildren(...served.map((r) =>
    row([r.label, r.scope_text, r.served, when(r.last_served_at), r.id])));
}

function row(cells) {
  const tr = el("tr");
  for (const cell of cells) tr.append(el("td", cell));
  return tr;
}

// -- resolve: what an agent would be sent -----------------------------------------------------
async function onResolve(event) {
  event.preventDefault();
  const form = event.target;
  const body = { paths: field(form, "paths").value, task: field(form, "task").value.trim() || null };
  if (field(form, "max_tokens").value) body.max_tokens = Number(field(form, "max_tokens").value);
  try {
    const reply = await api("POST", projectPath("/resolve"), body);
    $("#resolve-summary").textContent =
      `${reply.served.length} of ${reply.eligible} eligible rule(s) would be sent` +
      (reply.left_out_total ? `; ${reply.left_out_total} other(s) listed by title only.` : ".");
    $("#resolve-text").textContent = reply.text;
    $("#resolve-result").hidden = false;
    say("Nothing was recorded as served: this is a preview.");
  } catch (err) {
    say(err.message, true);
  }
}

// -- add ------------------------------------------------------------------------------------
async function onAdd(event) {
  event.preventDefault();
  const form = event.target;
  const body = {
    text: field(form, "text").value,
    title: field(form, "title").value,
    triggers: field(form, "triggers").value,
    scope: field(form, "scope").value,
    always: field(form, "always").checked,
  };
  try {
    const rule = await api("POST", projectPath("/rules"), body);
    form.reset();
    say(`added ${rule.id} [${rule.scope_text}] ${rule.label}`);
    location.hash = link(state.project.name, "active");
  } catch (err) {
    say(err.message, true);
  }
}

// -- start ----------------------------------------------------------------------------------
function start() {
  if (!window.lore.token()) return;  // the shell shows how to get in
  $("#layout").hidden = false;
  $("#resolve-form").addEventListener("submit", onResolve);
  $("#add-form").addEventListener("submit", onAdd);
  $("#auto-only").addEventListener("change", refresh);
  $("#tab-pending .bulk").addEventListener("click", onBulkBar);
  $("#tab-pending .select-all").addEventListener("change", (event) => {
    for (const box of document.querySelectorAll("#tab-pending input.pick")) box.checked = event.target.checked;
    updateSelection();
  });
  window.lore.domain("rules", refresh);  // on every address of the rules (#/p/NAME/TAB)
}

document.addEventListener("DOMContentLoaded", start);
