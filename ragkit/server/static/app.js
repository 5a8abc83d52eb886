// ragkit's chat page: plain JS, no build step. Talks to the same API as any client:
// /v1/chat/completions (streamed, with session_id), /sessions, /traces, /documents, /jobs.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { key: localStorage.getItem("ragkit-key") || "", model: "ragkit", session: null, switching: null };

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

function askForKey() {
  return new Promise((resolve) => {
    const dialog = $("key-dialog");
    $("key-input").value = "";
    dialog.addEventListener("close", () => {
      state.key = $("key-input").value.trim();
      localStorage.setItem("ragkit-key", state.key);
      resolve();
    }, { once: true });
    dialog.showModal();
  });
}

// fetch with the API key; a 401 asks for a key and retries once. X-Ragkit-Client marks the
// request as the page's own: a form on another site cannot send it (the server refuses a
// non-JSON POST without it)
async function api(path, options = {}, retried = false) {
  const headers = Object.assign({ "X-Ragkit-Client": "web" }, options.headers || {});
  if (state.key) headers["Authorization"] = "Bearer " + state.key;
  const response = await fetch(path, Object.assign({}, options, { headers }));
  if (response.status === 401 && !retried) {
    await askForKey();
    return api(path, options, true);
  }
  if (!response.ok) {
    let message = response.status + " " + response.statusText;
    try { message = (await response.json()).error.message; } catch (e) { /* not JSON */ }
    throw new Error(message);
  }
  return response;
}
const getJSON = async (path) => (await api(path)).json();
const sendJSON = async (path, method, body) =>
  (await api(path, { method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}) })).json();

// ---------------------------------------------------------------- times
const clock = (seconds) => new Date(seconds * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });

// "14:03" today, "Yesterday 14:03", "Mon 14:03" within a week, else "22 Nov 2026, 14:03"
function when(seconds) {
  const date = new Date(seconds * 1000), now = new Date();
  const days = Math.round((new Date(now.toDateString()) - new Date(date.toDateString())) / 86400000);
  if (days === 0) return clock(seconds);
  if (days === 1) return "Yesterday " + clock(seconds);
  if (days > 1 && days < 7) return date.toLocaleDateString([], { weekday: "short" }) + " " + clock(seconds);
  return date.toLocaleDateString([], { day: "numeric", month: "short", year: "numeric" }) + ", " + clock(seconds);
}

const timeTag = (seconds) => el("time", { datetime: new Date(seconds * 1000).toISOString() }, clock(seconds));

// ---------------------------------------------------------------- sessions
async function loadSessions() {
  const list = $("sessions");
  const { data } = await getJSON("/sessions");
  list.replaceChildren(...data.map((s) => el("li", {
    class: (s.id === state.session ? "active " : "") + (s.ended ? "ended" : ""),
    "data-id": s.id, title: (s.title || "Untitled") + " · started " + when(s.created_at),
    onclick: () => { menu(false); openSession(s.id); },
  }, el("span", { class: "title" }, (s.title || "Untitled") + (s.ended ? " (ended)" : "")),
     el("span", { class: "when" }, when(s.updated_at || s.created_at) +
        (s.items ? ` · ${Math.ceil(s.items / 2)} question${s.items > 2 ? "s" : ""}` : "")))));
}

// A session switch under way (new, opened, ended): a question asked meanwhile waits for it, so it
// goes to the session on the screen and the switch's redraw does not wipe its answer.
function track(switching) {
  state.switching = switching;
  return switching.finally(() => { if (state.switching === switching) state.switching = null; });
}

function openSession(id) { return track(showSession(id)); }

async function showSession(id) {
  const session = await getJSON("/sessions/" + encodeURIComponent(id));
  state.session = id;
  localStorage.setItem("ragkit-session", id);
  $("session-title").textContent = session.title || "New conversation";
  $("end-session").disabled = session.ended;
  $("delete-session").disabled = false;
  $("question").disabled = $("send").disabled = session.ended;
  const messages = $("messages");
  messages.replaceChildren();
  let last = null;
  for (const item of session.messages) {
    const calls = (item.data && item.data.tool_calls) || [];
    if (item.role === "tool" || calls.length) {  // a client's tool round trip (API clients with tools)
      const what = item.role === "tool" ? `tool result: ${item.content}`
        : "called " + calls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join(", ");
      addMessage("tool", what, item.created_at);
      continue;
    }
    const view = addMessage(item.role, item.content, item.created_at);
    if (item.role === "assistant") finishAnswer(view, item.citations, item.usage, item.trace_id, item.status);
    last = view;
  }
  if (last) last.node.scrollIntoView({ block: "end" });
  await loadSessions();
}

function newSession() {
  menu(false);
  return track((async () => {
    const session = await sendJSON("/sessions", "POST", {});
    await openSession(session.id);
    $("question").focus();
  })());
}

async function endSession() {
  if (!state.session) return;
  await sendJSON("/sessions/" + encodeURIComponent(state.session) + "/end", "POST");
  await openSession(state.session);
}

async function deleteSession() {
  if (!state.session) return;
  await api("/sessions/" + encodeURIComponent(state.session), { method: "DELETE" });
  state.session = null;
  localStorage.removeItem("ragkit-session");
  $("messages").replaceChildren();
  $("session-title").textContent = "New conversation";
  $("end-session").disabled = $("delete-session").disabled = true;
  $("question").disabled = $("send").disabled = false;
  await loadSessions();
}

// ---------------------------------------------------------------- messages
function addMessage(role, text, at) {
  const body = el("div", { class: "text" }, text);
  const node = el("div", { class: "message " + role }, timeTag(at || Date.now() / 1000), body);
  $("messages").append(node);
  node.scrollIntoView({ block: "end" });
  return { node, body };
}

// the final text with each [n] as a button that opens the cited passage
function renderCited(body, text, citations) {
  const byNumber = new Map((citations || []).map((c) => [c.n, c]));
  body.replaceChildren();
  let last = 0;
  for (const m of text.matchAll(/\[(\d+)\]/g)) {
    body.append(text.slice(last, m.index));
    const c = byNumber.get(Number(m[1]));
    body.append(c ? el("button", { class: "citation", type: "button", "data-n": m[1],
      onclick: () => showCitation(c) }, m[1]) : m[0]);
    last = m.index + m[0].length;
  }
  body.append(text.slice(last));
}

function usageLine(u) {
  if (!u || u.prompt_tokens === undefined) return "";
  const tokens = `LLM ${u.prompt_tokens} in / ${u.completion_tokens} out tokens · embeddings ${u.embedding_tokens || 0} tokens`;
  if (u.cost === null) {  // a model without a known price: unpriced, never $0
    const names = (u.unpriced || []).join(", ");
    return `${tokens} · cost unpriced${names ? ` (no price for ${names})` : ""}`;
  }
  const cost = Number(u.cost || 0);
  const money = cost === 0 ? "0" : cost.toFixed(Math.min(12, Math.max(4, 1 - Math.floor(Math.log10(cost)))));
  return `${tokens} · cost $${money}`;
}

function finishAnswer(view, citations, usage, traceId, status) {
  renderCited(view.body, view.body.textContent, citations);
  if (status && status !== "complete") view.node.classList.add(status);
  const meta = el("div", { class: "meta" });
  const line = usageLine(usage);
  if (line) meta.append(el("span", { class: "usage" }, line));
  if (traceId) meta.append(el("button", { type: "button", class: "trace-link", onclick: () => showTrace(traceId) }, "trace"));
  if (citations && citations.length) {
    view.node.append(el("div", { class: "sources" },
      "Sources: " + citations.map((c) => `[${c.n}] ${c.source}${c.page != null ? ", " + (c.page_unit === "cell" ? "cell " : "p. ") + c.page : ""}`).join("  ")));
  }
  view.node.append(meta);
}

// ---------------------------------------------------------------- side panel
function openPanel(title, ...children) {
  $("panel-title").textContent = title;
  $("panel-body").replaceChildren(...children);
  $("panel").hidden = false;
}

function showCitation(c) {
  const where = c.source + (c.page != null ? ", " + (c.page_unit || "page") + " " + c.page : "") +
    (c.start != null ? ` · characters ${c.start}–${c.end}` : "");
  openPanel(`[${c.n}] ${c.source}`, el("div", { class: "where" }, where), el("blockquote", {}, c.text));
}

async function showTrace(id) {
  const t = await getJSON("/traces/" + encodeURIComponent(id));
  const steps = ((t.run && t.run.steps) || []).map((s) => {
    const what = s.type === "tool_call" ? `${s.name}(${JSON.stringify(s.arguments)})`
      : s.type === "llm_call" ? `${s.provider}:${s.model} · ${s.input_tokens} in / ${s.output_tokens} out` : (s.message || "");
    return el("div", { class: "step" }, el("span", { class: "kind" }, s.type), ` #${s.iteration} ${what} · ${(s.duration * 1000).toFixed(0)} ms`);
  });
  openPanel("Trace " + id.slice(0, 8), el("div", { class: "where" },
    `${t.status} · ${(t.duration * 1000).toFixed(0)} ms · ${usageLine(t.usage)}`), ...steps);
}

// ---------------------------------------------------------------- asking (streamed)
async function ask(question) {
  showError("");
  while (state.switching) await state.switching.catch(() => {});
  if (!state.session) {
    const session = await sendJSON("/sessions", "POST", {});
    state.session = session.id;
    localStorage.setItem("ragkit-session", session.id);
    $("end-session").disabled = $("delete-session").disabled = false;
  }
  if (!$("messages").querySelector(".message.user")) $("session-title").textContent = question;
  addMessage("user", question);
  const view = addMessage("assistant", "");
  const response = await api("/v1/chat/completions", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ model: state.model, stream: true, stream_options: { include_usage: true },
                           session_id: state.session, messages: [{ role: "user", content: question }] }),
  });
  let citations = [], usage = null, traceId = null, buffer = "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const line = buffer.slice(0, cut).trim();
      buffer = buffer.slice(cut + 2);
      if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
      const chunk = JSON.parse(line.slice(6));
      if (chunk.error) { showError(chunk.error.message); view.node.classList.add("incomplete"); continue; }
      if (chunk.usage) usage = chunk.usage;
      for (const choice of chunk.choices || []) {
        if (choice.delta.content) { view.body.append(choice.delta.content); view.node.scrollIntoView({ block: "end" }); }
        if (choice.delta.citations) { citations = choice.delta.citations; traceId = chunk.trace_id; }
      }
    }
  }
  finishAnswer(view, citations, usage, traceId, "complete");
  view.node.scrollIntoView({ block: "end" });  // the whole answer, its sources and usage in view
  await loadSessions();
}

// ---------------------------------------------------------------- uploads
async function upload(files) {
  const form = new FormData();
  for (const f of files) form.append("files", f, f.name);
  const job = await (await api("/documents", { method: "POST", body: form })).json();
  const line = el("div", { class: "job" }, `${job.documents.join(", ")}: queued`);
  $("jobs").prepend(line);
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const j = await getJSON("/jobs/" + job.id);
    if (j.status === "succeeded") {
      const c = j.result.counts;
      line.textContent = `${job.documents.join(", ")}: ${c.added} added, ${c.updated} updated, ${c.unchanged} unchanged, ` +
        `${c.skipped} skipped · ${j.result.embedding_tokens} embedding tokens` +
        j.result.skipped.map((s) => ` · ${s.source}: ${s.reason}`).join("");
      return;
    }
    if (j.status === "failed") { line.textContent = `${job.documents.join(", ")}: failed: ${j.error}`; line.classList.add("failed"); return; }
    line.textContent = `${job.documents.join(", ")}: ${j.status}…`;
  }
}

// ---------------------------------------------------------------- wiring
function guard(fn) {
  return async (...args) => { try { await fn(...args); } catch (e) { showError(e.message); } };
}

$("ask-form").addEventListener("submit", guard(async (event) => {
  event.preventDefault();
  const question = $("question").value.trim();
  if (!question) return;
  $("question").value = "";
  $("send").disabled = true;
  try { await ask(question); } finally { $("send").disabled = false; }
}));
$("question").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("ask-form").requestSubmit(); }
});
$("new-session").addEventListener("click", guard(newSession));
$("end-session").addEventListener("click", guard(endSession));
$("delete-session").addEventListener("click", guard(deleteSession));
$("panel-close").addEventListener("click", () => { $("panel").hidden = true; });
// narrow screens: the sidebar slides in from ☰ and closes with ×, a tap beside it or a choice in it
function menu(open) {
  document.body.classList.toggle("menu-open", open);
  $("menu").setAttribute("aria-expanded", String(open));
}
$("menu").addEventListener("click", (e) => { e.stopPropagation(); menu(true); });
$("menu-close").addEventListener("click", () => menu(false));
$("chat").addEventListener("click", () => menu(false));
$("upload-form").addEventListener("submit", guard(async (event) => {
  event.preventDefault();
  const files = $("upload-files").files;
  if (files.length) await upload(files);
  $("upload-files").value = "";
}));

// start-up is a session switch: a question asked meanwhile (the key dialog just closed) waits for
// it, and the session remembered from the last visit is read before anything is awaited: a question
// asked meanwhile stores its own, whose redraw would wipe the answer being written
guard(() => track((async () => {
  const last = localStorage.getItem("ragkit-session");
  const models = await getJSON("/v1/models");
  if (models.data.length) state.model = models.data[0].id;
  await loadSessions();
  if (last) { try { await showSession(last); } catch (e) { localStorage.removeItem("ragkit-session"); } }
})()))();
