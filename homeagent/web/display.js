// Display hints of tool results (seed 004 §6 rich messages): lists, data_series as a
// chart, confirm_action as buttons, risk_alert highlighted.

import { post } from "./api.js";
import { chart } from "./chart.js";
import { t } from "./i18n.js";
import { h } from "./ui.js";

export function rowText(row) {
  if (row === null || typeof row !== "object") return String(row);
  const main = row.content ?? row.title ?? row.name ?? row.text ?? row.mood ?? row.note ?? row.day ?? "";
  const extra = [];
  if (row.due) extra.push(String(row.due).replace("T", " ").slice(0, 16));
  if (row.day && main !== row.day) extra.push(row.day);
  if (row.ml !== undefined) extra.push(`${row.ml} ml`);
  if (row.streak !== undefined) extra.push(`${t("streak")} ${row.streak}`);
  if (row.score) extra.push(`${row.score}/5`);
  if (row.amount_minor !== undefined) extra.push(`${(row.amount_minor / 100).toFixed(2)} ${row.currency || ""}`);
  const id = row.id !== undefined ? `#${row.id} ` : "";
  return `${id}${main}${extra.length ? " · " + extra.join(" · ") : ""}`;
}

export function renderHint(hint) {
  if (!hint || hint.kind === "text") return null;
  if (hint.kind === "list") {
    const rows = Array.isArray(hint.data) ? hint.data : [];
    if (!rows.length) return null;
    return h("div.hint.hint-list", h("ul", rows.slice(0, 12).map((r) => h("li", rowText(r)))));
  }
  if (hint.kind === "data_series") {
    return h("div.hint.hint-series", h("div.hint-title", hint.title || ""), chart(hint.data));
  }
  if (hint.kind === "risk_alert") {
    const data = hint.data || {};
    return h(`div.hint.risk.risk-${data.level || "warning"}`, { role: "alert" }, `⚠ ${data.message || hint.title}`);
  }
  if (hint.kind === "confirm_action") {
    const data = hint.data || {};
    const box = h("div.hint.confirm-action");
    const status = h("span.status");
    const yes = h("button.primary", { onclick: async () => {
      yes.disabled = no.disabled = true;
      try {
        const res = await post(`/api/actions/${encodeURIComponent(data.tool)}`, { arguments: data.arguments || {}, confirmed: true });
        status.textContent = res.content;
      } catch (err) {
        status.textContent = err.message;
      }
    } }, t("confirm"));
    const no = h("button", { onclick: () => { yes.disabled = no.disabled = true; status.textContent = t("denied"); } }, t("deny"));
    box.append(h("div", `${t("permissionAsk")}: ${data.tool} ${JSON.stringify(data.arguments || {})}`), h("div.buttons", yes, no), status);
    return box;
  }
  return null;
}
