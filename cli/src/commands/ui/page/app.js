// memdir's workbench (issue 48). Everything shown comes from /api/, which answers from the
// memory core; text from memory files goes into the page as text (textContent), and a memory's
// body as the HTML the server rendered with raw HTML escaped. The Content-Security-Policy runs
// this file only.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { dir: "", offset: 0, path: "", overview: null };

/** An element with attributes and children; strings become text nodes, never HTML. */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function say(text, error = false) {
  $("message").textContent = text;
  $("message").className = error ? "error" : "";
}

async function api(name, params = {}) {
  const query = new URLSearchParams(params).toString();
  const response = await fetch(`/api/${name}${query ? `?${query}` : ""}`, { credentials: "same-origin" });
  const json = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(json.error || response.statusText);
  return json;
}

async function post(name, body) {
  const response = await fetch(`/api/${name}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ dir: state.dir, ...body }),
  });
  const json = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(json.error || response.statusText);
  return json;
}

const when = (ms) => (ms === null || ms === undefined ? "never" : new Date(Number(ms)).toLocaleString());

function clear(node) {
  while (node.firstChild) node.firstChild.remove();
  return node;
}

async function overview() {
  const o = await api("overview");
  state.overview = o;
  $("project").textContent = o.cwd;
  $("readonly").hidden = !o.read_only;
  $("pause").hidden = o.read_only;
  $("retire").hidden = o.read_only;
  const select = clear($("dir"));
  for (const d of o.dirs) {
    select.append(el("option", { value: d.dir }, `${d.kind === "another project" ? d.about : d.kind} (${d.count})`));
  }
  if (!state.dir) state.dir = o.dirs[0]?.dir ?? "";
  select.value = state.dir;
  const dirs = clear($("dirs").tBodies[0]);
  for (const d of o.dirs) {
    dirs.append(el("tr", {}, el("td", {}, d.dir), el("td", {}, d.kind === "another project" ? d.about : d.kind), el("td", {}, d.count), el("td", {}, d.team), el("td", {}, when(d.last_change_ms)), el("td", { class: "small", "data-test": "switches" }, switches(d.status))));
  }
  const status = clear($("status"));
  const s = o.status;
  const rows = [
    ["auto memory", `${s.auto_memory ? "on" : "off"} (decided by ${s.decided_by})`],
    ...s.memory_writes.map((r) => [`${r["memory-type"]} writes`, `${r.mode} (decided by ${r["decided-by"]})`]),
    ["instructions", s.instructions ? "on" : "off"],
    ["team memory", s.team_memory ? "on" : "off"],
    ["daily log", s.daily_log ? "on" : "off"],
    ["team sync", s.team_sync],
    ["memory dir", s.memory_dir],
    ["project root", s.project_root],
    ["learning", s.learning.agents.map((a) => `${a.model} (${a.client})`).join(", ") || "no agent's hook set up"],
    ["last 7 days", `${s.learning.extractions} turns learned from, ${s.learning.calls} calls, ${s.learning.skipped} skipped by the gate`],
  ];
  for (const [k, v] of rows) status.append(el("dt", {}, k), el("dd", {}, v));
  await pending();
}

/** A project's switches and write policy in one line, each with the rule that decided it. */
function switches(s) {
  if (!s) return "";
  return [
    `auto memory ${s.auto_memory ? "on" : "off"} (${s.decided_by})`,
    ...s.memory_writes.map((r) => `${r["memory-type"]} ${r.mode} (${r["decided-by"]})`),
    `team memory ${s.team_memory ? "on" : "off"}`,
  ].join(" · ");
}

async function memories(more = false) {
  if (!more) state.offset = 0;
  const list = more ? $("memories") : clear($("memories"));
  const page = await api("memories", { dir: state.dir, offset: state.offset, filter: $("filter").value });
  for (const m of page.memories) {
    list.append(
      el("li", { class: "item", "data-path": m.path, onclick: () => openMemory(m.path) },
        el("div", { class: "name" }, m.name ?? m.path),
        el("div", { class: "small muted" }, `${m.type ?? "no type"} · ${m.path} · given ${m.used}×`),
        el("div", { class: "small" }, m.description ?? ""),
      ),
    );
  }
  state.offset = page.offset + page.memories.length;
  $("more").hidden = state.offset >= page.total;
  say(`${page.total} memories`);
}

async function openMemory(path) {
  state.path = path;
  for (const li of document.querySelectorAll("#memories li")) li.classList.toggle("active", li.dataset.path === path);
  const [m, writes] = await Promise.all([api("memory", { dir: state.dir, path }), api("timeline", { dir: state.dir, path })]);
  const article = clear($("memory"));
  const body = el("div", { class: "markdown", "data-test": "body" });
  body.innerHTML = m.html; // rendered by the server, raw HTML escaped
  const readOnly = state.overview?.read_only;
  article.append(
    el("h2", {}, m.name ?? m.path),
    el("p", { class: "muted" }, `${m.type ?? "no type"} · ${m.path} · changed ${when(m.mtime_ms)} · given to agents ${m.used}× (last ${when(m.last_used_ms)})`),
    el("p", {}, m.description ?? ""),
    body,
    el("h3", {}, "Check"),
    m.diagnostics.length ? el("ul", {}, m.diagnostics.map((d) => el("li", { class: "finding warning" }, d))) : null,
    el("div", { id: "checked" }, el("button", { type: "button", "data-test": "check", onclick: () => check(path) }, "Check now")),
    el("h3", {}, "Links"),
    el("p", { class: "small" }, `links to: ${m.links.map((l) => l.target ?? l.name ?? JSON.stringify(l)).join(", ") || "none"}; linked from: ${m.backlinks.join(", ") || "none"}`),
    el("h3", {}, "Frontmatter"),
    el("pre", {}, m.frontmatter),
    el("h3", {}, "History"),
    m.history.length
      ? el("ul", { "data-test": "history" }, m.history.map((h) =>
          el("li", {}, el("div", {}, `earlier version, kept ${when(h.trashed_ms)} `,
            readOnly ? null : el("button", { type: "button", onclick: () => restore(h.id) }, "Restore")),
          el("pre", {}, h.diff))))
      : el("p", { class: "muted", "data-test": "history" }, "No earlier version is kept."),
    el("h3", {}, "Written"),
    writesList(writes.written, "writes"),
    path.startsWith("team/") ? el("div", { id: "team-log" }, el("h3", {}, "Team history (git)"), el("p", { class: "muted" }, "Reading the team's git log…")) : null,
  );
  if (path.startsWith("team/")) teamLog(path);
  if (!readOnly) {
    const editor = el("textarea", { "data-test": "editor" });
    editor.value = m.body;
    article.append(
      el("h3", {}, "Edit"),
      editor,
      el("div", {},
        el("button", { type: "button", "data-test": "save", onclick: () => save(path, editor.value) }, "Save"), " ",
        el("button", { type: "button", class: "danger", onclick: () => forget(path) }, "Forget")),
    );
  }
}

async function check(path) {
  const box = clear($("checked"));
  box.append(el("p", { class: "muted" }, "Checking the whole memory against the project…"));
  try {
    const c = await api("check", { dir: state.dir, path });
    clear(box).append(
      c.findings.length
        ? el("ul", {}, c.findings.map((f) => el("li", { class: `finding ${f.severity}` }, `${f.severity}: ${f.message}`)))
        : el("p", { class: "muted" }, `Checked now (${when(c.checked_ms)}, ${c.memories} memories): nothing found here.`),
    );
  } catch (e) {
    clear(box).append(el("p", { class: "finding warning" }, `The check could not run: ${e.message}`));
  }
}

async function save(path, body) {
  try {
    await post("edit", { path, body });
    say(`Saved ${path}: on disk, and every agent sees it now.`);
    await openMemory(path);
  } catch (e) {
    say(e.message, true);
  }
}

async function forget(path) {
  try {
    await post("forget", { path });
    say(`Forgot ${path}; it is in the trash and can be restored.`);
    clear($("memory"));
    await memories();
  } catch (e) {
    say(e.message, true);
  }
}

async function restore(id) {
  try {
    const r = await post("restore", { id });
    say(`Restored ${r.path}.`);
    await memories();
    await openMemory(r.path);
  } catch (e) {
    say(e.message, true);
  }
}

/** Why recall found a memory: the model chose it, it is close in meaning, or words it shares. */
function why(r, a) {
  const words = a.matched.length ? `the request's words ${a.matched.map((w) => `“${w}”`).join(", ")}` : "";
  if (r.selector === "model") return `why: the model (${r.model}) chose it${words ? `; it shares ${words}` : ""}`;
  if (words) return `why: ${words}`;
  return r.embeddings ? `why: close in meaning (${r.embeddings})` : "why: no word in common: named as a plausible match";
}

async function search(event) {
  event.preventDefault();
  const q = $("q").value;
  const r = await api("search", { dir: state.dir, q });
  const list = clear($("results"));
  $("search-about").textContent = `Selected by ${r.selector ?? "nothing"}: ${r.attachments.filter((a) => a.whole).length} whole, ${r.attachments.filter((a) => !a.whole).length} as an index entry. ${r.diagnostics.join(" ")}`;
  for (const a of r.attachments) {
    list.append(el("li", { class: "item", onclick: () => { show("memories"); openMemory(a.path); } },
      el("div", { class: "name" }, a.path),
      el("div", { class: "small muted" }, `${a.whole ? "given whole" : "named by its index entry"} · ${a.bytes} bytes · ${a.freshness}${a.stale ? " · stale" : ""}`),
      el("div", { class: "small", "data-test": "why" }, why(r, a)),
      el("pre", {}, a.text)));
  }
  if (!r.attachments.length) list.append(el("li", { class: "muted" }, "Recall would give the agent nothing for this request."));
}

async function receipts() {
  const r = await api("receipts", { dir: state.dir });
  const rows = clear($("receipts").tBodies[0]);
  for (const x of r.receipts) {
    rows.append(el("tr", {}, el("td", {}, when(x["at-ms"])), el("td", {}, x.client), el("td", {}, x.session ?? ""), el("td", {}, x.kind), el("td", {}, x.memories.join(", ")), el("td", {}, x.bytes)));
  }
  const usage = clear($("usage").tBodies[0]);
  for (const u of r.usage) usage.append(el("tr", {}, el("td", {}, u.path), el("td", {}, u.count), el("td", {}, when(u["last-ms"]))));
}

/** Writes from the timeline: when, which memory, what happened, who asked, and the diff. */
function writesList(entries, test) {
  if (!entries.length) return el("p", { class: "muted", "data-test": test }, "No write is recorded yet.");
  return el("ul", { "data-test": test }, entries.map((w) =>
    el("li", { class: "item" },
      el("div", {}, el("span", { class: "name" }, `${w.action} ${w.path}`), " by ", el("strong", { "data-test": "by" }, w.by)),
      el("div", { class: "small muted" }, `${when(w.at_ms)}${w.note ? ` · ${w.note}` : ""}`),
      w.diff ? el("details", {}, el("summary", {}, "diff"), el("pre", {}, w.diff)) : null)));
}

/** A team memory's commits, from whichever machine made them; a teammate's text is data. */
async function teamLog(path) {
  const box = $("team-log");
  try {
    const r = await api("team-log", { dir: state.dir, path });
    clear(box).append(el("h3", {}, "Team history (git)"), r.commits.length
      ? el("ul", { "data-test": "team-log" }, r.commits.map((c) =>
          el("li", { class: "item" },
            el("div", {}, el("span", { class: "name" }, c.subject), " by ", el("strong", {}, c.author)),
            el("div", { class: "small muted" }, `${when(c["at-ms"])} · ${c.id.slice(0, 12)}`),
            el("details", {}, el("summary", {}, "diff"), el("pre", {}, c.diff + (c["diff-truncated"] ? "\n… (cut at 16 KB)" : ""))))))
      : el("p", { class: "muted" }, "No commit touches this memory yet: team sync commits it."));
  } catch (e) {
    clear(box).append(el("h3", {}, "Team history (git)"), el("p", { class: "muted" }, e.message));
  }
}

async function written() {
  const r = await api("timeline", { dir: state.dir });
  clear($("written")).append(writesList(r.written, "timeline"));
}

async function pending() {
  const r = await api("pending", { dir: state.dir });
  $("paused").hidden = !r.paused;
  $("pause").textContent = r.paused ? "Resume writes" : "Pause writes";
  $("pending-count").hidden = !r.proposals.length;
  $("pending-count").textContent = r.proposals.length;
  const list = clear($("proposals"));
  const readOnly = state.overview?.read_only;
  for (const p of r.proposals) {
    list.append(el("li", { class: "item", "data-id": p.id },
      el("div", { class: "name" }, `${p.op} ${p.path}`),
      el("div", { class: "small muted" }, `from ${p.source}, ${when(p["created-ms"])}`),
      el("pre", {}, p.body ?? p.description ?? ""),
      readOnly ? null : el("div", {},
        el("button", { type: "button", onclick: () => review(p.id, true) }, "Accept"), " ",
        el("button", { type: "button", class: "danger", onclick: () => review(p.id, false) }, "Reject"))));
  }
  if (!r.proposals.length) list.append(el("li", { class: "muted" }, "Nothing waits for review."));
}

async function review(id, accept) {
  try {
    await post("review", { id, accept });
    say(accept ? "Accepted: written through the writer's checks." : "Rejected: it will not be proposed again.");
    await pending();
    await memories();
  } catch (e) {
    say(e.message, true);
  }
}

function show(tab) {
  for (const b of document.querySelectorAll("nav button[data-tab]")) b.classList.toggle("active", b.dataset.tab === tab);
  for (const s of document.querySelectorAll("section.tab")) s.hidden = s.id !== `tab-${tab}`;
  if (tab === "receipts") receipts().catch((e) => say(e.message, true));
  if (tab === "written") written().catch((e) => say(e.message, true));
  if (tab === "review") pending().catch((e) => say(e.message, true));
}

document.addEventListener("DOMContentLoaded", () => {
  for (const b of document.querySelectorAll("nav button[data-tab]")) b.addEventListener("click", () => show(b.dataset.tab));
  $("dir").addEventListener("change", () => {
    state.dir = $("dir").value;
    clear($("memory"));
    memories().then(pending).catch((e) => say(e.message, true));
  });
  $("filter").addEventListener("input", () => memories().catch((e) => say(e.message, true)));
  $("more").addEventListener("click", () => memories(true).catch((e) => say(e.message, true)));
  $("search-form").addEventListener("submit", (e) => search(e).catch((x) => say(x.message, true)));
  $("retire").addEventListener("click", async () => {
    try {
      const r = await post("retire", {});
      say(r.proposed.length ? r.proposed.join(" ") : "Every memory was given to an agent in the last 90 days (or the receipts do not go back that far).");
      await pending();
    } catch (e) {
      say(e.message, true);
    }
  });
  $("pause").addEventListener("click", async () => {
    try {
      await post($("pause").textContent.startsWith("Pause") ? "pause" : "resume", {});
      await pending();
    } catch (e) {
      say(e.message, true);
    }
  });
  overview().then(() => memories()).catch((e) => say(e.message, true));
});
