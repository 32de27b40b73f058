// Memory: the graph (entities, relations, validity periods; search; forget a fact),
// documents with their access counts, and the working context.

import { del, get } from "./api.js";
import { t } from "./i18n.js";
import { clear, errorBox, h, when } from "./ui.js";

const NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

// Entities on a circle, relations as lines (dashed once they no longer hold).
function graphPicture(entities, facts) {
  const size = 320, r = 120, c = size / 2;
  const root = svg("svg", { viewBox: `0 0 ${size} ${size}`, class: "graph-svg" });
  const shown = entities.slice(0, 40);
  const pos = new Map(shown.map((e, i) => {
    const a = (2 * Math.PI * i) / Math.max(1, shown.length);
    return [e.id, [c + r * Math.cos(a), c + r * Math.sin(a)]];
  }));
  for (const f of facts) {
    const a = pos.get(f.subject_id), b = pos.get(f.object_id);
    if (!a || !b) continue;
    const line = svg("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: f.current ? "edge" : "edge past" });
    const tip = svg("title"); tip.textContent = `${f.subject} ${f.relation} ${f.object}`; line.append(tip);
    root.append(line);
  }
  for (const e of shown) {
    const [x, y] = pos.get(e.id);
    const node = svg("circle", { cx: x, cy: y, r: 4 + Math.min(6, e.mentions), class: "node" });
    const label = svg("text", { x, y: y - 9, class: "node-label", "text-anchor": "middle" });
    label.textContent = e.name;
    root.append(node, label);
  }
  return root;
}

function graphTab() {
  const search = h("input", { type: "search", placeholder: t("search"), id: "graph-search" });
  const body = h("div.body");
  const load = async () => {
    try {
      const q = search.value.trim();
      const data = await get(`/api/memory/graph?limit=200${q ? "&q=" + encodeURIComponent(q) : ""}`);
      clear(body,
        h("p.summary", `${data.entities.length} ${t("entities")} · ${data.facts.length} ${t("facts")}`),
        data.facts.length ? graphPicture(data.entities, data.facts) : null,
        h("table.facts", h("tbody", data.facts.map((f) => h("tr", { dataset: { fact: String(f.id) }, class: f.current ? "current" : "past" },
          h("td", h("b", f.subject), " ", h("span.rel", f.relation), " ", h("b", f.object)),
          h("td.validity", `${t("since")} ${when(f.valid_from)}`, f.valid_to ? ` ${t("until")} ${when(f.valid_to)}` : "",
            " ", h("span.badge", f.current ? t("current") : t("past"))),
          h("td", h("button.link.forget-fact", { onclick: async () => { await del(`/api/memory/facts/${f.id}`); load(); } }, t("forget"))))))));
    } catch (err) {
      clear(body, errorBox(err));
    }
  };
  search.addEventListener("input", () => { clearTimeout(search.timer); search.timer = setTimeout(load, 250); });
  load();
  return h("div.tab-graph", search, body);
}

function documentsTab() {
  const search = h("input", { type: "search", placeholder: t("search") });
  const body = h("div.body");
  const load = async () => {
    try {
      const q = search.value.trim();
      const data = await get(`/api/memory/documents?limit=50${q ? "&q=" + encodeURIComponent(q) : ""}`);
      clear(body, data.documents.length ? h("ul.items", data.documents.map((d) => h("li",
        h("div", d.summary), h("div.meta", `${d.source || ""} · ${t("accessCount")} ${d.access_count} · ${t("lastAccess")} ${d.last_access ? when(d.last_access) : t("never")}`)))) : h("p.empty", t("nothing")));
    } catch (err) {
      clear(body, errorBox(err));
    }
  };
  search.addEventListener("input", () => { clearTimeout(search.timer); search.timer = setTimeout(load, 250); });
  load();
  return h("div", search, body);
}

function contextTab() {
  const body = h("div.body");
  get("/api/memory/context").then((data) => clear(body, data.entries.length
    ? h("ul.items", data.entries.map((e) => h("li", h("span.badge", e.role), " ", e.content)))
    : h("p.empty", t("nothing")))).catch((err) => clear(body, errorBox(err)));
  return body;
}

export function memoryView() {
  const panel = h("div.panel");
  const tabs = [["graph", graphTab], ["documents", documentsTab], ["context", contextTab]];
  const bar = h("div.subtabs", tabs.map(([key, make]) => h("button", { id: `memory-${key}`, onclick: (ev) => {
    for (const b of bar.children) b.classList.toggle("active", b === ev.target);
    clear(panel, make());
  } }, t(key))));
  bar.children[0].classList.add("active");
  clear(panel, graphTab());
  return { view: h("section.memory", bar, panel) };
}
