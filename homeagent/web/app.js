// The HomeAgent dashboard: sign in once (the token stays in localStorage), then chat,
// today, memory, runs and the box; the household token also sees settings.

import { ApiError, get, stream, token, whenUnauthorized } from "./api.js";
import { boxView, settingsView } from "./box.js";
import { chatView, permissionCard, shownRequests } from "./chat.js";
import { currentLang, setLang, t } from "./i18n.js";
import { memoryView } from "./memory.js";
import { runsView } from "./runs.js";
import { todayView } from "./today.js";
import { clear, h } from "./ui.js";

const root = document.getElementById("app");
let me = null;
let chat = null;
// One signed-in page at a time: signing out, a new sign-in or a language switch aborts the
// previous page's open streams and polls, so nothing runs (or is shown) twice.
let session = new AbortController();
const endSession = () => session.abort();
const pause = (ms, signal) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
});
const pendingCards = new Map();

function loginForm(message) {
  const input = h("input", { type: "password", id: "token", autocomplete: "current-password", placeholder: t("tokenHint") });
  const form = h("form.login", { onsubmit: async (ev) => {
    ev.preventDefault();
    token.set(input.value.trim());
    start();
  } }, h("h1", t("title")), h("label", { for: "token" }, t("token")), input,
  h("button.primary", { type: "submit", id: "sign-in" }, t("signIn")), message ? h("p.error", message) : null);
  clear(root, form);
  input.focus();
}

async function pollPermissions(banner, signal) {
  while (!signal.aborted) {
    try {
      const data = await get("/api/permissions", { signal });
      const live = new Set(data.requests.map((r) => r.request_id));
      for (const [id, card] of pendingCards) {
        if (!live.has(id)) { card.remove(); pendingCards.delete(id); }
      }
      for (const req of data.requests) {
        if (shownRequests.has(req.request_id) || pendingCards.has(req.request_id)) continue;
        const card = permissionCard(req, req.answer_url);
        pendingCards.set(req.request_id, card);
        banner.append(card);
      }
      banner.hidden = pendingCards.size === 0;
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return;
    }
    await pause(2000, signal);
  }
}

// Pushed messages (reminders) through GET /api/events, streamed (Accept: text/event-stream)
// while the page is open; after a drop it resumes from the last event id it saw (the
// stream's opening frame gives one before any event comes).
async function subscribePush(signal) {
  let lastId = null;
  while (!signal.aborted) {
    try {
      await stream("GET", "/api/events", undefined, (type, data, id) => {
        if (id) lastId = id;
        if (data && typeof data === "object") chat?.pushed(type, data);
      }, { lastEventId: lastId, signal, onId: (id) => { lastId = id; } });
    } catch (err) {
      if (err instanceof ApiError && [401, 403, 404, 405].includes(err.status)) return;  // no push route here
    }
    await pause(3000, signal);
  }
}

function shell() {
  const views = { chat: () => chat, today: todayView, memory: memoryView, runs: runsView, box: boxView };
  if (me.admin) views.settings = settingsView;
  const main = h("main", { id: "view" });
  const banner = h("div.pending", { id: "pending", hidden: true });
  const nav = h("nav", Object.keys(views).map((key) => h("button.tab", { id: `tab-${key}`, onclick: () => show(key) }, t(key))));
  const lang = h("button.link", { id: "lang", onclick: () => { setLang(currentLang() === "zh" ? "en" : "zh"); start(); } }, t("language"));
  const out = h("button.link", { id: "sign-out", onclick: () => { token.clear(); endSession(); loginForm(); } }, t("signOut"));
  const header = h("header", h("span.brand", t("title")), h("span.who", { id: "who" }, me.member || "household"), nav, lang, out);
  chat = chatView();
  const cache = { chat };
  function show(key) {
    for (const b of nav.children) b.classList.toggle("active", b.id === `tab-${key}`);
    if (key !== "chat" || !cache[key]) cache[key] = views[key]();
    clear(main, cache[key].view);
    location.hash = key;
  }
  chat.view.addEventListener("turn-done", () => { delete cache.today; });
  clear(root, header, banner, main);
  show((location.hash.slice(1) in views) ? location.hash.slice(1) : "chat");
  pollPermissions(banner, session.signal);
  subscribePush(session.signal);
  document.body.dataset.readyMs = String(Math.round(performance.now()));  // for bench/web_load.py
  document.body.dataset.ready = "1";
}

async function start() {
  endSession();
  session = new AbortController();
  setLang(currentLang());
  document.title = t("title");
  try {
    me = await get("/api/me", { quiet401: true });
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      loginForm(token.get() ? t("badToken") : "");
      document.body.dataset.formMs = String(Math.round(performance.now()));
      token.clear();
      return;
    }
    throw err;
  }
  shell();
}

whenUnauthorized(() => { endSession(); token.clear(); loginForm(t("badToken")); });
start();
