// Lore's reader: the library, uploads, the reading position, questions, characters and the graph.
// Book text, names and answers are data: they are only ever set with textContent (never parsed
// as HTML), and every call goes through the shell's `lore.api` (app.js) with the run's token.
// The server applies the reader's position to everything it sends, so nothing here filters.
"use strict";

(() => {
  const VIEWS = ["ask", "characters", "graph"];
  const GRAPH_NODES = 24;  // the most connected names; more would not be readable at once
  const GRAPH_EDGES = 40;  // the strongest relationships among them
  const EDGES_PER_NODE = 4;  // a name keeps its strongest few links; the rest are noise
  const KIND_ORDER = ["person", "character", "place", "group", "object", "event", "name"];
  const KIND_LABELS = {
    person: "people", character: "characters", place: "places", group: "groups",
    object: "objects", event: "events", name: "other names",
  };
  const state = { books: [], book: null, view: "ask", renders: 0, asking: null, model: null };

  const $ = (selector, root = document) => root.querySelector(selector);

  const { el, svg } = window.lore;  // the shell's DOM helpers (app.js): text via textContent only

  const say = (message, isError = false) => window.lore.say(message, isError);
  const api = (path, opts) => window.lore.api(path, opts);
  const bookPath = (suffix = "") => "/books/" + encodeURIComponent(state.book.id) + suffix;
  const link = (id, view) => `#books/${id}/${view}`;

  // -- navigation: #books/ID/VIEW ------------------------------------------------------------
  function route(rest) {
    const [id, view] = rest.split("/");
    return { id: id ? Number(id) : null, view: VIEWS.includes(view) ? view : "ask" };
  }

  async function show(rest) {
    try {
      await render(route(rest));
    } catch (err) {
      say(err.message, true);
    }
  }

  // Renders can overlap (a click while the previous one loads); only the newest one draws.
  async function render({ id, view }) {
    const generation = ++state.renders;
    const current = () => generation === state.renders;
    const library = await api("/books");
    if (!current()) return;
    state.books = library.books;
    state.model = library.model;
    renderModelNote();
    const chosen = state.books.find((b) => b.id === id) || state.books[0] || null;
    renderLibrary(chosen);
    $("#reader").hidden = !chosen;
    if (!chosen) return;
    const detail = await api("/books/" + chosen.id);
    if (!current()) return;
    if (!state.book || state.book.id !== detail.id) clearAnswer();
    state.book = detail;
    state.view = view;
    renderHead();
    for (const v of VIEWS) $("#view-" + v).hidden = v !== view;
    for (const a of document.querySelectorAll("#reader .tabs a")) {
      a.href = link(detail.id, a.dataset.view);
      window.lore.markCurrent(a, a.dataset.view === view);
    }
    if (view === "characters") await renderCharacters(current);
    if (view === "graph") await renderGraph(current);
  }

  function rerender() {
    return show(location.hash.replace(/^#books\/?/, ""));
  }

  // -- the library -----------------------------------------------------------------------------
  function renderModelNote() {
    const note = $("#model-note");
    note.hidden = state.model.configured;
    note.textContent = state.model.configured ? "" : "No model is set up. " + state.model.note;
  }

  function renderLibrary(chosen) {
    const list = $("#library");
    list.replaceChildren();
    $("#no-books").hidden = state.books.length > 0;
    for (const book of state.books) {
      const item = el("li", null, "book-item");
      item.dataset.book = book.id;
      item.classList.toggle("current", chosen !== null && book.id === chosen.id);
      const a = el("a", book.title, "book-link");
      a.href = link(book.id, "ask");
      item.append(a);
      item.append(el("p", book.authors.join(", "), "muted small"));
      const where = el("p", book.position.label, "small position-label");
      const bar = el("progress");
      bar.max = 1;
      bar.value = book.read;
      where.append(" ", bar);
      item.append(where);
      list.append(item);
    }
  }

  function renderHead() {
    const b = state.book;
    $("#book-title").textContent = b.title;
    $("#book-author").textContent = [b.authors.join(", "), `${b.chapters} chapters`].filter(Boolean).join(" · ");
    $("#book-position").textContent = b.position.label;
    $("#book-read").value = b.read;
    const select = $("#position-chapter select");
    const options = [el("option", "not started")];
    options[0].value = "0";
    for (const c of b.outline) {
      const option = el("option", c.title ? `${c.chapter}. ${c.title}` : `Chapter ${c.chapter}`);
      option.value = String(c.chapter);
      options.push(option);
    }
    select.replaceChildren(...options);
    select.value = String(b.position.chapter);
  }

  // -- uploading -------------------------------------------------------------------------------
  // XMLHttpRequest, not fetch: only it reports how much of a request body has been sent.
  function send(file) {
    return new Promise((resolve, reject) => {
      const form = new FormData();
      form.append("file", file);
      const xhr = new XMLHttpRequest();
      xhr.open("POST", "/api/books/upload");
      xhr.setRequestHeader("X-Lore-Token", window.lore.token());
      xhr.responseType = "json";
      xhr.upload.onprogress = (event) => {
        if (event.lengthComputable) setBar("#upload-bar", event.loaded / event.total, "#upload-pct");
      };
      xhr.onload = () => {
        if (xhr.status === 202) resolve(xhr.response);
        else reject(new Error((xhr.response && xhr.response.error) || `upload failed (HTTP ${xhr.status})`));
      };
      xhr.onerror = () => reject(new Error("the upload did not reach the server"));
      xhr.send(form);
    });
  }

  function setBar(selector, fraction, label) {
    $(selector).value = fraction;
    if (label) $(label).textContent = `${Math.round(fraction * 100)}%`;
  }

  const pause = (ms) => new Promise((done) => setTimeout(done, ms));

  async function onUpload(event) {
    event.preventDefault();
    const file = $("#upload-file").files[0];
    if (!file) return;
    const button = $("#upload-submit");
    button.disabled = true;
    $("#upload-progress").hidden = false;
    setBar("#upload-bar", 0, "#upload-pct");
    setBar("#import-bar", 0);
    $("#import-stage").textContent = "waiting for the upload";
    try {
      let job = await send(file);
      setBar("#upload-bar", 1, "#upload-pct");
      while (job.state === "importing") {
        setBar("#import-bar", job.fraction);
        $("#import-stage").textContent = job.stage;
        await pause(150);
        job = await api("/books/imports/" + encodeURIComponent(job.id));
      }
      if (job.state === "failed") throw new Error(job.error);
      setBar("#import-bar", 1);
      $("#import-stage").textContent = "done";
      const book = job.book;
      say(job.already_present ? `${book.title} was already in the library.` :
        `Imported ${book.title}: ${book.chapters} chapters, ${book.words.toLocaleString("en")} words. Set your position to start.`);
      $("#upload-form").reset();
      location.hash = link(book.id, "ask");
      await rerender();
    } catch (err) {
      $("#import-stage").textContent = "failed";
      say(err.message, true);
    } finally {
      button.disabled = false;
    }
  }

  // -- position --------------------------------------------------------------------------------
  async function setPosition(body) {
    try {
      const book = await api(bookPath("/position"), { method: "POST", body });
      say(`${book.title}: you are at ${book.position.label}.`);
      await rerender();
    } catch (err) {
      say(err.message, true);
    }
  }

  function onPositionChapter(event) {
    event.preventDefault();
    const form = event.target;
    const passage = form.elements.namedItem("passage").value;
    const body = { chapter: Number(form.elements.namedItem("chapter").value) };
    if (passage) body.passage = Number(passage);
    setPosition(body);
  }

  function onPositionPercent(event) {
    event.preventDefault();
    setPosition({ percent: Number(event.target.elements.namedItem("percent").value) });
  }

  function onPositionAt(event) {
    event.preventDefault();
    setPosition({ at: event.target.elements.namedItem("at").value });
  }

  // -- asking ------------------------------------------------------------------------------------
  // Ask and Stop are two elements, and only their visibility changes: a re-render while Stop is
  // being clicked can never turn the element under the pointer into a submit button. Focus goes
  // with the control: when the one that has it is hidden, the one shown in its place takes it,
  // so a keyboard user is never dropped to the top of the page.
  function setBusy(busy) {
    const ask = $("#ask-submit");
    const stopButton = $("#ask-stop");
    const hiding = busy ? ask : stopButton;
    const showing = busy ? stopButton : ask;
    const hadFocus = document.activeElement === hiding;
    ask.disabled = busy;
    ask.hidden = busy;
    stopButton.hidden = !busy;
    if (hadFocus) showing.focus();
  }

  // Ctrl+Enter (Cmd+Enter on a Mac) in the question asks it, as the Ask button does.
  function onQuestionKey(event) {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey) || event.isComposing) return;
    event.preventDefault();
    if (!state.asking) $("#ask-form").requestSubmit();
  }

  function clearAnswer() {
    if (state.asking) stop();
    $("#answer").hidden = true;
    $("#answer-message").textContent = "";
    $("#answer-sentences").replaceChildren();
    $("#answer-notes").replaceChildren();
    $("#ask-status").textContent = "";
    $("#context").hidden = true;
  }

  async function onAsk(event) {
    event.preventDefault();
    if (state.asking) return;  // one question at a time
    const form = event.target;
    const question = form.elements.namedItem("question").value.trim();
    if (!question) return;
    const spoilers = $("#ask-spoilers").checked;
    $("#ask-spoilers").checked = false;  // for this question only
    clearAnswer();
    const run = { id: null, controller: new AbortController(), stopped: false, spoilers, bookId: state.book.id };
    state.asking = run;
    setBusy(true);
    $("#answer").hidden = false;
    $("#ask-status").textContent = "Searching the part of the book you have read…";
    try {
      const response = await api("/books/ask", {
        method: "POST", body: { book: run.bookId, question, spoilers }, signal: run.controller.signal, raw: true,
      });
      await readEvents(response, (ev) => onEvent(run, ev));
    } catch (err) {
      if (!run.stopped) say(err.message, true);
    } finally {
      if (state.asking === run) state.asking = null;
      setBusy(false);
    }
  }

  async function readEvents(response, handle) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.trim()) handle(JSON.parse(line));
      }
    }
  }

  function onEvent(run, ev) {
    if (run.stopped && ev.kind !== "stopped") return;
    const status = $("#ask-status");
    if (ev.kind === "started") {
      run.id = ev.ask;
      run.model = ev.model;
    } else if (ev.kind === "evidence") {
      status.textContent = `${ev.passages} passage(s) found; ` +
        (run.model ? "the model is proposing claims, each checked against its passage…" : "choosing their sentences…");
    } else if (ev.kind === "claim") {
      status.textContent = "A claim passed its check; writing…";
    } else if (ev.kind === "sentence") {
      $("#answer-sentences").append(sentenceItem(ev.sentence, run));
    } else if (ev.kind === "answer") {
      finish(ev.answer, run);
    } else if (ev.kind === "stopped") {
      status.textContent = "Stopped. Nothing more was asked of the model.";
    } else if (ev.kind === "error") {
      status.textContent = "";
      say(ev.error, true);
    }
  }

  function finish(answer, run) {
    const status = $("#ask-status");
    const cut = answer.claims.cut ? ` ${answer.claims.cut} claim(s) failed their checks and were left out.` : "";
    status.textContent = answer.mode === "model" ? `Checked answer.${cut}` :
      answer.mode === "extractive" ? "The book's own sentences (no model)." : "";
    const message = $("#answer-message");
    message.textContent = answer.message;
    if (answer.verdict === "not_reached" && !run.spoilers) {
      message.textContent += " Tick “show spoilers for this question” to see it anyway.";
    }
    message.hidden = !message.textContent;
    // the library's note already says what a model would add: it is not said twice
    const notes = answer.notes.filter((n) => n !== state.model.note);
    $("#answer-notes").replaceChildren(...notes.map((n) => el("li", n)));
  }

  function sentenceItem(sentence, run) {
    const item = el("li", null, "sentence");
    item.append(el("span", sentence.text, "sentence-text"));
    for (const c of sentence.citations) {
      const cite = el("button", `ch. ${c.chapter}`, "cite");
      cite.type = "button";
      cite.title = c.quote;
      cite.dataset.passage = c.passage_id;
      cite.addEventListener("click", () => openContext(c, run.spoilers));
      item.append(" ", cite);
    }
    return item;
  }

  function stop() {
    const run = state.asking;
    if (!run || run.stopped) return;
    run.stopped = true;
    $("#ask-status").textContent = "Stopping…";
    if (run.id) api(`/books/ask/${encodeURIComponent(run.id)}/stop`, { method: "POST" }).catch(() => {});
    run.controller.abort();  // the server stops on a dropped stream too
    $("#ask-status").textContent = "Stopped. Nothing more was asked of the model.";
  }

  // -- a citation in context ---------------------------------------------------------------------
  async function openContext(citation, spoilers) {
    try {
      const query = spoilers ? "?spoilers=true" : "";
      const found = await api(`/books/${citation.book_id}/passages/${citation.passage_id}${query}`);
      $("#context-title").textContent =
        `${found.book.title}, chapter ${found.chapter}` + (found.chapter_title ? `: ${found.chapter_title}` : "");
      $("#context-passages").replaceChildren(...found.passages.map((p) => contextPassage(p, citation.quote)));
      $("#context").hidden = false;
      const cited = $("#context .cited");
      if (cited) cited.scrollIntoView({ block: "nearest" });
    } catch (err) {
      say(err.message, true);
    }
  }

  function contextPassage(passage, quote) {
    const p = el("p", null, passage.cited ? "passage cited" : "passage");
    p.dataset.passage = passage.passage_id;
    const at = passage.cited ? passage.text.indexOf(quote) : -1;
    if (at < 0) {
      p.textContent = passage.text;
      return p;
    }
    p.append(passage.text.slice(0, at), el("mark", quote), passage.text.slice(at + quote.length));
    return p;
  }

  // -- characters and the graph ------------------------------------------------------------------
  async function renderCharacters(current) {
    const found = await api(bookPath("/characters?limit=100"));
    if (!current()) return;
    const rows = found.characters.map((c) => {
      const tr = el("tr");
      tr.dataset.name = c.name;
      for (const cell of [c.name, c.kind, c.mentions, c.first_chapter, c.aliases.join(", ")]) tr.append(el("td", cell));
      return tr;
    });
    $("#characters tbody").replaceChildren(...rows);
    $("#no-characters").hidden = rows.length > 0;
  }

  async function renderGraph(current) {
    const found = await api(bookPath("/graph?limit=200"));
    if (!current()) return;
    drawGraph($("#graph"), found.nodes || [], found.edges || found.relations || []);
  }

  // The relationship view: the strongest relationships among the most connected names, laid out
  // by forces (linked names pull together, all names push apart), each kind in its own column
  // (people, places, groups), then labels pushed apart until none overlaps another.
  function strongest(nodes, edges) {
    const weight = new Map();
    for (const e of edges) {
      weight.set(e.source, (weight.get(e.source) || 0) + (e.passages || 1));
      weight.set(e.target, (weight.get(e.target) || 0) + (e.passages || 1));
    }
    const top = nodes
      .filter((n) => weight.has(n.id))
      .sort((a, b) => weight.get(b.id) - weight.get(a.id) || a.id - b.id)
      .slice(0, GRAPH_NODES);
    const ids = new Set(top.map((n) => n.id));
    const kept = new Map();
    const links = [];
    const ranked = edges
      .filter((e) => ids.has(e.source) && ids.has(e.target))
      .sort((a, b) => (b.passages || 1) - (a.passages || 1));
    for (const e of ranked) {
      if (links.length >= GRAPH_EDGES) break;
      if ((kept.get(e.source) || 0) >= EDGES_PER_NODE && (kept.get(e.target) || 0) >= EDGES_PER_NODE) continue;
      links.push(e);
      kept.set(e.source, (kept.get(e.source) || 0) + 1);
      kept.set(e.target, (kept.get(e.target) || 0) + 1);
    }
    return { shown: top.filter((n) => kept.has(n.id)), links };
  }

  function kindOf(n) { return KIND_ORDER.includes(n.kind) ? n.kind : "name"; }

  function layout(shown, links, width, height) {
    const kinds = KIND_ORDER.filter((k) => shown.some((n) => kindOf(n) === k));
    const column = new Map(kinds.map((k, i) => [k, (width * (i + 0.5)) / kinds.length]));
    const at = new Map();
    const count = new Map();
    for (const n of shown) {  // deterministic start: each kind's names down its column
      const k = kindOf(n);
      const i = count.get(k) || 0;
      count.set(k, i + 1);
      at.set(n.id, { x: column.get(k) + (i % 2 ? 20 : -20), y: 40 + ((i * 97) % (height - 80)) });
    }
    const most = Math.max(1, ...links.map((e) => e.passages || 1));
    const ideal = Math.sqrt((width * height) / Math.max(1, shown.length)) * 0.6;
    for (let step = 0, heat = width / 10; step < 300; step++, heat *= 0.985) {
      const move = new Map(shown.map((n) => [n.id, { x: 0, y: 0 }]));
      for (let i = 0; i < shown.length; i++) {
        for (let j = i + 1; j < shown.length; j++) {
          const a = at.get(shown[i].id), b = at.get(shown[j].id);
          const dx = a.x - b.x || 0.01, dy = a.y - b.y || 0.01;
          const d2 = dx * dx + dy * dy, push = (ideal * ideal) / d2;
          move.get(shown[i].id).x += dx * push; move.get(shown[i].id).y += dy * push;
          move.get(shown[j].id).x -= dx * push; move.get(shown[j].id).y -= dy * push;
        }
      }
      for (const e of links) {
        const a = at.get(e.source), b = at.get(e.target);
        const dx = a.x - b.x, dy = a.y - b.y, d = Math.hypot(dx, dy) || 0.01;
        const pull = (d / ideal) * (0.3 + (e.passages || 1) / most);
        move.get(e.source).x -= dx * pull / 2; move.get(e.source).y -= dy * pull / 2;
        move.get(e.target).x += dx * pull / 2; move.get(e.target).y += dy * pull / 2;
      }
      for (const n of shown) {
        const p = at.get(n.id), m = move.get(n.id);
        m.x += (column.get(kindOf(n)) - p.x) * 0.8;  // each kind keeps to its column (its band)
        m.y += (height / 2 - p.y) * 0.05;
        const len = Math.hypot(m.x, m.y) || 1;
        const band = width / kinds.length, left = column.get(kindOf(n)) - band / 2;
        p.x = Math.min(left + band * 0.6, Math.max(left + 10, p.x + (m.x / len) * Math.min(len, heat)));
        p.y = Math.min(height - 20, Math.max(20, p.y + (m.y / len) * Math.min(len, heat)));
      }
    }
    return at;
  }

  function overlap(a, b, gap) {
    return a.x < b.x + b.w + gap && b.x < a.x + a.w + gap && a.y < b.y + b.h + gap && b.y < a.y + a.h + gap;
  }

  function separateLabels(boxes) {
    // push overlapping labels apart vertically (their nodes move with them) until none overlaps
    for (let round = 0; round < 500; round++) {
      let moved = false;
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
          const a = boxes[i], b = boxes[j];
          if (!overlap(a, b, 2)) continue;
          const [up, down] = a.y <= b.y ? [a, b] : [b, a];
          const shift = (up.y + up.h + 3 - down.y) / 2 + 0.5;
          up.y -= shift; down.y += shift;
          moved = true;
        }
      }
      if (!moved) return;
    }
  }

  function drawGraph(canvas, nodes, edges) {
    const { shown, links } = strongest(nodes, edges);
    const kinds = KIND_ORDER.filter((k) => shown.some((n) => kindOf(n) === k)).map((k) => KIND_LABELS[k]);
    $("#graph-summary").textContent = shown.length
      ? `${shown.length} of ${nodes.length} names and their ${links.length} strongest link(s): who appears with whom in what you have read. Left to right: ${kinds.join(", ")}.`
      : "No one appears with anyone yet in what you have read.";
    const width = 800, height = 600;
    const at = layout(shown, links, width, height);
    const degree = new Map();
    for (const e of links) for (const id of [e.source, e.target]) degree.set(id, (degree.get(id) || 0) + 1);
    const radius = (n) => 5 + Math.min(8, degree.get(n.id) || 0);
    // labels to the right of their node; measured where the browser can, estimated otherwise
    const probe = svg("text", { x: 0, y: 0 }, "");
    canvas.replaceChildren(probe);
    const boxes = shown.map((n) => {
      probe.textContent = n.name;
      const measured = probe.getBBox ? probe.getBBox() : { width: 0, height: 0 };
      const w = (measured.width || 7.5 * n.name.length) + 2 * radius(n) + 6;
      const h = Math.max(measured.height || 16, 2 * radius(n));
      const p = at.get(n.id);
      return { id: n.id, x: p.x - radius(n), y: p.y - h / 2, w, h };
    });
    separateLabels(boxes);
    for (const b of boxes) {
      const n = shown.find((s) => s.id === b.id);
      at.set(b.id, { x: b.x + radius(n), y: b.y + b.h / 2 });
    }
    const xs = boxes.flatMap((b) => [b.x, b.x + b.w]), ys = boxes.flatMap((b) => [b.y, b.y + b.h]);
    if (boxes.length) {
      const [x0, y0] = [Math.min(...xs) - 10, Math.min(...ys) - 10];
      canvas.setAttribute("viewBox", `${x0} ${y0} ${Math.max(...xs) + 10 - x0} ${Math.max(...ys) + 10 - y0}`);
    }
    const most = Math.max(1, ...links.map((e) => e.passages || 1));
    const parts = [];
    for (const e of links) {
      const a = at.get(e.source), b = at.get(e.target);
      parts.push(svg("line", {
        x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: "edge",
        "stroke-width": (1 + 3 * ((e.passages || 1) / most)).toFixed(1),
      }));
    }
    for (const n of shown) {
      const p = at.get(n.id);
      const group = svg("g", { class: "node " + kindOf(n) });
      group.append(svg("circle", { cx: p.x, cy: p.y, r: radius(n) }));
      group.append(svg("text", { x: p.x + radius(n) + 4, y: p.y + 4 }, n.name));
      parts.push(group);
    }
    canvas.replaceChildren(...parts);
  }

  // -- start -------------------------------------------------------------------------------------
  function start() {
    if (!window.lore.token()) return;
    $("#upload-form").addEventListener("submit", onUpload);
    $("#position-chapter").addEventListener("submit", onPositionChapter);
    $("#position-percent").addEventListener("submit", onPositionPercent);
    $("#position-at").addEventListener("submit", onPositionAt);
    $("#ask-form").addEventListener("submit", onAsk);
    $('#ask-form [name="question"]').addEventListener("keydown", onQuestionKey);
    $("#ask-stop").addEventListener("click", stop);
    $("#context-close").addEventListener("click", () => { $("#context").hidden = true; });
    window.lore.domain("books", show);
  }

  document.addEventListener("DOMContentLoaded", start);
})();
