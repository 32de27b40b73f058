// Runs and their traces: timings, tokens, provider, tool calls, and the display hints of
// their results.

import { get } from "./api.js";
import { renderHint } from "./display.js";
import { t } from "./i18n.js";
import { clear, errorBox, h, when } from "./ui.js";

function traceLine(e) {
  const d = e.data || {};
  if (e.type === "model_call") {
    return `${d.provider}/${d.model} · ${d.duration_ms} ms · ${d.prompt_tokens}→${d.completion_tokens} ${t("tokens")} · ${d.tool_calls} ${t("toolCalls")}`;
  }
  if (e.type === "tool_call") return `${d.name} ${d.arguments}`;
  if (e.type === "tool_result") return `${d.name} ${d.ok ? "✓" : "✗"} ${Math.round(d.duration_ms || 0)} ms`;
  if (e.type === "text_delta") return null;
  if (e.type === "done") return `${d.finish_reason} · ${d.prompt_tokens}→${d.completion_tokens} ${t("tokens")}`;
  return JSON.stringify(d).slice(0, 160);
}

export function runsView() {
  const list = h("div.runs");
  const detail = h("div.trace");
  const open = async (run) => {
    try {
      const trace = await get(`/api/agent/runs/${run.id}/trace?limit=1000`);
      const s = trace.stats || {};
      clear(detail, h("h3", `${t("trace")} ${run.id}`),
        h("p.summary", `${t("duration")} ${s.duration_ms ?? "?"} ms · model ${s.model_ms ?? 0} ms · tools ${s.tool_ms ?? 0} ms · ${s.prompt_tokens ?? 0}→${s.completion_tokens ?? 0} ${t("tokens")}`),
        h("ol.events", trace.events.map((e) => {
          const line = traceLine(e);
          // A result's display hint renders here too: a delete refused on a channel that
          // could not ask (confirm_action) can be confirmed from this trace.
          return line === null ? null : h("li", h("span.badge", e.type), " ", line, e.type === "tool_result" ? renderHint(e.data.display) : null);
        })));
    } catch (err) {
      clear(detail, errorBox(err));
    }
  };
  get("/api/agent/runs?limit=30").then((data) => clear(list, data.runs.length ? h("ul.items", data.runs.map((run) => h("li.run", { onclick: () => open(run) },
    h("span.badge", run.status), " ", h("b", run.input.slice(0, 60)),
    h("div.meta", `${when(run.created_at)} · ${run.channel} · ${run.provider || ""} ${run.model || ""} · ${run.duration_ms ?? "?"} ms · ${run.usage.total_tokens} ${t("tokens")}`)))) : h("p.empty", t("noRuns"))))
    .catch((err) => clear(list, errorBox(err)));
  return { view: h("section.runs-view", list, detail) };
}
