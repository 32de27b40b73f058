// The box: provider chain and cooldowns, the model, usage and budget, heartbeat
// history; and, for the household token, the settings.

import { get } from "./api.js";
import { t } from "./i18n.js";
import { clear, errorBox, h, when } from "./ui.js";

export function boxView() {
  const body = h("div.body");
  get("/api/status").then((s) => {
    const p = s.provider;
    const chain = (p.providers || []).map((r) => h("li", h("b", r.name), ` · ${r.state}`,
      r.failures ? ` · ${r.failures} ${t("failed")}` : "", r.cooldown_s ? ` · ${t("cooldown")} ${r.cooldown_s} s` : "",
      r.detail ? ` · ${r.detail}` : ""));
    clear(body,
      h("section.card", h("h3", t("provider")), h("p", h("b", p.name), ` · ${t("model")} ${s.model} · ${p.state}`, p.detail ? ` · ${p.detail}` : ""),
        chain.length ? h("div", h("h4", t("chain")), h("ul.items", chain)) : null),
      h("section.card", h("h3", t("usage")), s.usage.length ? h("table", h("tbody", s.usage.map((u) => h("tr",
        h("td", u.day), h("td", `${u.provider}/${u.model}`), h("td", `${u.requests} ${t("requests")}`),
        h("td", `${u.prompt_tokens + u.completion_tokens} ${t("tokens")}`))))) : h("p.empty", t("nothing")),
        h("p", `${t("budget")}: ${s.budget.cloud_tokens_today}${s.budget.daily_cloud_tokens ? " / " + s.budget.daily_cloud_tokens : ""}`)),
      h("section.card", h("h3", t("heartbeats")), s.heartbeats.length ? h("ul.items", s.heartbeats.slice().reverse().map((b) => h("li",
        `${when(b.at)} · ${Math.round(b.duration_ms)} ms · +${b.facts_new} ${t("facts")} · ${b.records_distilled} distilled${b.errors.length ? " · " + b.errors.join("; ") : ""}`))) : h("p.empty", t("nothing"))));
  }).catch((err) => clear(body, errorBox(err)));
  return { view: h("section.box", body) };
}

export function settingsView() {
  const body = h("div.body");
  get("/api/settings").then((s) => clear(body,
    h("section.card", h("h3", t("members")), h("ul.items", s.members.map((m) => h("li", `${m.name}${m.active ? "" : " (revoked)"}`)))),
    h("section.card", h("h3", t("config")), h("pre.config", JSON.stringify(s.config, null, 2)))))
    .catch((err) => clear(body, errorBox(err)));
  return { view: h("section.settings", body) };
}
