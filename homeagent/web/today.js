// Today: tasks, events, habits with streaks, the shopping list, and water, sleep, mood
// and spending as small charts. Reads go through GET /api/records/<kind>; edits through
// POST /api/actions/<tool>, the agent's own actions under the same permission policy.

import { ApiError, get, post } from "./api.js";
import { chart } from "./chart.js";
import { rowText } from "./display.js";
import { t } from "./i18n.js";
import { clear, errorBox, h } from "./ui.js";

async function act(tool, args, confirmed = false) {
  try {
    return await post(`/api/actions/${tool}`, { arguments: args, confirmed });
  } catch (err) {
    if (err instanceof ApiError && err.code === "confirmation_required") return { needsConfirm: true };
    throw err;
  }
}

function deleteButton(tool, args, refresh) {
  const button = h("button.link.delete", { title: t("delete") }, "✕");
  button.addEventListener("click", async () => {
    const first = await act(tool, args);
    if (!first.needsConfirm) return refresh();
    // The policy asks first: the page asks, and the click on "confirm" is the answer.
    const sure = h("button.primary.small.confirm-delete", { onclick: async () => { await act(tool, args, true); refresh(); } },
      t("confirm"));
    const cancel = h("button.small", { onclick: () => { sure.remove(); cancel.remove(); button.hidden = false; } }, t("deny"));
    button.hidden = true;
    button.after(h("span.ask-inline", t("reallyDelete")), sure, cancel);
  });
  return button;
}

function section(id, title, loader) {
  const body = h("div.body");
  const card = h("section.card", { id }, h("h3", title), body);
  const refresh = async () => {
    try {
      await loader(body, refresh);
    } catch (err) {
      clear(body, errorBox(err));
    }
  };
  card.refresh = refresh;
  return card;
}

function adder(placeholder, onAdd) {
  const input = h("input", { placeholder });
  return h("form.adder", { onsubmit: async (ev) => {
    ev.preventDefault();
    const value = input.value.trim();
    if (!value) return;
    input.value = "";
    await onAdd(value);
  } }, input, h("button", { type: "submit" }, t("add")));
}

const records = (kind, query = "") => get(`/api/records/${kind}${query}`);

export function todayView() {
  const tasks = section("today-tasks", t("tasks"), async (body, refresh) => {
    const page = await records("tasks", "?status=open&limit=50");
    clear(body,
      page.items.length ? h("ul.items", page.items.map((task) => h("li", { dataset: { id: String(task.id) } },
        h("input", { type: "checkbox", title: t("done"), onchange: async () => { await act("complete_task", { id: task.id }); refresh(); } }),
        h("span.label", rowText(task)), deleteButton("delete_task", { id: task.id }, refresh)))) : h("p.empty", t("nothing")),
      adder(t("newTask"), async (content) => { await act("create_task", { content }); refresh(); }));
  });
  const events = section("today-events", t("events"), async (body) => {
    const page = await records("events", "?from=today&to=today&limit=50");
    clear(body, page.items.length ? h("ul.items", page.items.map((e) => h("li", rowText(e)))) : h("p.empty", t("nothing")));
  });
  const habits = section("today-habits", t("habits"), async (body, refresh) => {
    const page = await records("habits");
    clear(body, page.items.length ? h("ul.items", page.items.map((hb) => h("li",
      h("span.label", `${hb.name} · ${t("streak")} ${hb.streak} · ${t("best")} ${hb.best_streak}`),
      hb.checked_today ? h("span.badge", t("checkedToday"))
        : h("button.small", { onclick: async () => { await act("check_in_habit", { id: hb.id }); refresh(); } }, t("checkIn"))))) : h("p.empty", t("nothing")));
  });
  const shopping = section("today-shopping", t("shopping"), async (body, refresh) => {
    const page = await records("shopping", "?limit=50");
    clear(body,
      page.items.length ? h("ul.items", page.items.map((item) => h("li",
        h("span.label", `${item.name} ${item.quantity || ""}`),
        h("button.small", { onclick: async () => { await act("mark_shopping_bought", { id: item.id }); refresh(); } }, t("bought"))))) : h("p.empty", t("nothing")),
      adder(t("newItem"), async (item) => { await act("add_shopping_item", { item }); refresh(); }));
  });
  const series = (id, titleKey, kind, query, chartKind) => section(id, t(titleKey), async (body) => {
    const page = await records(kind, query);
    const hint = page.display;
    if (hint && hint.kind === "data_series" && hint.data.points.length) {
      clear(body, chart(hint.data, { kind: chartKind }), h("p.summary", page.text.split("\n").slice(-1)[0]));
    } else {
      clear(body, h("p.empty", t("nothing")));
    }
  });
  const water = series("today-water", "water", "water", "?from=last%207%20days", "bar");
  const sleep = series("today-sleep", "sleep", "sleep", "?from=last%207%20days", "bar");
  const mood = series("today-mood", "mood", "mood", "?from=last%207%20days", "line");
  const money = series("today-money", "money", "money", "", "bar");
  const cards = [tasks, events, habits, shopping, water, sleep, mood, money];
  const view = h("section.today", h("div.grid", cards));
  const refresh = () => Promise.all(cards.map((c) => c.refresh()));
  refresh();
  return { view, refresh };
}
