// Chat: the answer streams from POST /api/chat (SSE of agent events); tool calls show
// compactly and open for their arguments and results; display hints render under the
// answer; a permission request becomes confirm / deny buttons; any message can be
// forgotten.

import { ApiError, del, get, post, stream } from "./api.js";
import { renderHint } from "./display.js";
import { t } from "./i18n.js";
import { h } from "./ui.js";

const DEVICE_KEY = "homeagent.device";
export const shownRequests = new Set();  // permission requests already shown in a turn

function deviceId() {
  let id = localStorage.getItem(DEVICE_KEY);
  if (!id) {
    id = "browser-" + Math.random().toString(36).slice(2, 10);
    localStorage.setItem(DEVICE_KEY, id);
  }
  return id;
}

function forgetButton(bubble) {
  return h("button.link.forget", { title: t("forget"), onclick: async (ev) => {
    const id = bubble.dataset.id;
    if (!id) return;
    ev.target.disabled = true;
    await del(`/api/messages/${id}`);
    bubble.classList.add("forgotten");
    bubble.querySelector(".text").textContent = t("forgotten");
  } }, "✕ " + t("forget"));
}

function bubble(role, text, id) {
  const el = h(`div.msg.${role}`, { dataset: id ? { id: String(id) } : {} }, h("div.text", text || ""));
  el.append(h("div.tools"), h("div.hints"), h("div.meta", forgetButton(el)));
  return el;
}

export function permissionCard(req, answerUrl) {
  const status = h("span.status");
  const answer = (decision) => async () => {
    for (const b of card.querySelectorAll("button")) b.disabled = true;
    try {
      await post(answerUrl, { decision });
      status.textContent = decision === "deny" ? t("denied") : t("confirmed");
    } catch (err) {
      status.textContent = err.message;
    }
  };
  const card = h("div.permission", { dataset: { request: req.request_id } },
    h("div.ask", `${t("permissionAsk")}: `, h("b", req.tool), ` (${req.permission}) `,
      h("code", JSON.stringify(req.arguments || {}))),
    req.channel ? h("div.from", `${t("fromChannel")} ${req.channel}${req.device_id ? " · " + req.device_id : ""}`) : null,
    h("div.buttons",
      h("button.primary.confirm", { onclick: answer("allow_once") }, t("confirm")),
      h("button.deny", { onclick: answer("deny") }, t("deny")),
      h("button.link", { onclick: answer("allow_session") }, t("allowSession"))),
    status);
  return card;
}

// Snooze / acknowledge a delivered reminder (POST /api/reminders/{id}/snooze|acknowledge).
function reminderActions(id) {
  const status = h("span.status");
  const act = (what) => async () => {
    for (const b of box.querySelectorAll("button")) b.disabled = true;
    try {
      const done = await post(`/api/reminders/${id}/${what}`);
      status.textContent = what === "snooze" ? `${t("snoozedUntil")} ${String(done.until).slice(11, 16)}` : t("acknowledged");
    } catch (err) {
      status.textContent = err.message;
      // Already answered (409) or not this member's (404): nothing more to do here.
      if (!(err instanceof ApiError && [404, 409].includes(err.status))) {
        for (const b of box.querySelectorAll("button")) b.disabled = false;
      }
    }
  };
  const box = h("div.buttons.reminder-actions",
    h("button.snooze", { type: "button", onclick: act("snooze") }, t("snooze")),
    h("button.primary.acknowledge", { type: "button", onclick: act("acknowledge") }, t("acknowledge")),
    status);
  return box;
}

export function chatView() {
  const list = h("div.messages", { id: "messages" });
  const input = h("textarea", { id: "chat-input", rows: 1, placeholder: t("placeholder") });
  const button = h("button.primary", { type: "submit", id: "chat-send" }, t("send"));
  const form = h("form.composer", { onsubmit: (ev) => { ev.preventDefault(); send(); } }, input, button);
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) { ev.preventDefault(); send(); }
  });
  const view = h("section.chat", list, form);
  let busy = false;

  const scroll = () => { list.scrollTop = list.scrollHeight; };

  async function loadHistory() {
    try {
      const page = await get("/api/messages?limit=30");
      // Pushed messages are not in the history: they stay, after it.
      list.replaceChildren(...page.messages.reverse().map((m) => bubble(m.role, m.content, m.id)),
        ...list.querySelectorAll(".msg.pushed"));
      scroll();
    } catch { /* an empty history is fine */ }
  }

  async function attachIds(userEl, answerEl) {
    try {
      const page = await get("/api/messages?limit=2");
      for (const m of page.messages) {
        const el = m.role === "user" ? userEl : answerEl;
        if (el && !el.dataset.id) el.dataset.id = String(m.id);
      }
    } catch { /* ids only power "forget" */ }
  }

  async function send() {
    const text = input.value.trim();
    if (!text || busy) return;
    busy = true;
    button.disabled = true;
    input.value = "";
    const userEl = bubble("user", text);
    const answerEl = bubble("assistant", "");
    answerEl.classList.add("streaming");
    list.append(userEl, answerEl);
    scroll();
    const textEl = answerEl.querySelector(".text");
    const tools = answerEl.querySelector(".tools");
    const hints = answerEl.querySelector(".hints");
    const calls = new Map();
    try {
      await stream("POST", "/api/chat", { message: text, channel: "browser", device_id: deviceId() }, (type, data) => {
        if (type === "text_delta") {
          textEl.textContent += data.text;
        } else if (type === "tool_call") {
          const detail = h("details.tool", { dataset: { call: data.call_id } },
            h("summary", h("span.name", "⚙ " + data.name), h("span.state", " …")),
            h("div.args", h("b", t("args") + ": "), h("code", data.arguments || "{}")));
          calls.set(data.call_id, detail);
          tools.append(detail);
        } else if (type === "tool_result") {
          const detail = calls.get(data.call_id);
          if (detail) {
            detail.classList.add(data.ok ? "ok" : "failed");
            detail.querySelector(".state").textContent = ` ${data.ok ? "✓" : "✗"} ${Math.round(data.duration_ms)} ms`;
            detail.append(h("div.result", h("b", t("result") + ": "), h("pre", data.content)));
          }
          const hint = renderHint(data.display);
          if (hint) hints.append(hint);
        } else if (type === "permission_request") {
          shownRequests.add(data.request_id);
          // The pending-list poll may have shown it first: one card per request.
          document.querySelector(`#pending [data-request="${CSS.escape(data.request_id)}"]`)?.remove();
          hints.append(permissionCard(data, data.answer_url));
        } else if (type === "notice") {
          tools.append(h("div.notice", data.text));
        } else if (type === "error") {
          answerEl.classList.add("error");
          textEl.textContent += (textEl.textContent ? "\n" : "") + data.message;
        }
        scroll();
      });
    } catch (err) {
      answerEl.classList.add("error");
      textEl.textContent += err.message;
    } finally {
      answerEl.classList.remove("streaming");
      answerEl.classList.add("done");
      busy = false;
      button.disabled = false;
      await attachIds(userEl, answerEl);
      view.dispatchEvent(new CustomEvent("turn-done", { bubbles: true }));
    }
  }

  // A pushed frame's data: {id, type, text, member, ref, due, late, created_at}.
  function pushed(kind, data) {
    const el = bubble("pushed", data.text ?? data.message ?? JSON.stringify(data));
    const label = kind === "reminder" ? t("reminder") : t("pushed");
    if (data.late === true) el.classList.add("late");
    el.querySelector(".meta").replaceChildren(h("span.kind", data.late === true ? `${label} · ${t("late")}` : label));
    if (data.id) el.dataset.event = String(data.id);
    const reminderId = /^reminder:(\d+)$/.exec(data.ref || "")?.[1];
    if (reminderId) el.append(reminderActions(reminderId));
    list.append(el);
    scroll();
  }

  loadHistory();
  return { view, pushed, reload: loadHistory };
}
