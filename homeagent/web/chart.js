// A small SVG chart for a data_series display hint: {unit, points: [{x, y}]}.

const NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

export function chart(series, { width = 320, height = 120, kind = "line" } = {}) {
  const points = (series?.points || []).filter((p) => Number.isFinite(p.y));
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img" });
  if (!points.length) return root;
  const pad = { l: 34, r: 8, t: 10, b: 20 };
  const ys = points.map((p) => p.y);
  const lo = Math.min(0, ...ys), hi = Math.max(...ys, lo + 1);
  const w = width - pad.l - pad.r, hgt = height - pad.t - pad.b;
  const x = (i) => pad.l + (points.length === 1 ? w / 2 : (i * w) / (points.length - 1));
  const y = (v) => pad.t + hgt - ((v - lo) / (hi - lo)) * hgt;
  root.append(svg("line", { x1: pad.l, y1: y(lo), x2: width - pad.r, y2: y(lo), class: "axis" }));
  const label = svg("text", { x: 2, y: pad.t + 8, class: "tick" });
  label.textContent = `${+hi.toFixed(1)}${series.unit ? " " + series.unit : ""}`;
  root.append(label);
  if (kind === "bar" || points.length === 1) {
    const bw = Math.max(4, Math.min(28, w / points.length - 4));
    points.forEach((p, i) => {
      const bar = svg("rect", { x: x(i) - bw / 2, y: y(p.y), width: bw, height: Math.max(1, y(lo) - y(p.y)), class: "bar" });
      const tip = svg("title"); tip.textContent = `${p.x}: ${p.y}`; bar.append(tip);
      root.append(bar);
    });
  } else {
    root.append(svg("polyline", { points: points.map((p, i) => `${x(i)},${y(p.y)}`).join(" "), class: "line" }));
    points.forEach((p, i) => {
      const dot = svg("circle", { cx: x(i), cy: y(p.y), r: 2.5, class: "dot" });
      const tip = svg("title"); tip.textContent = `${p.x}: ${p.y}`; dot.append(tip);
      root.append(dot);
    });
  }
  const first = svg("text", { x: pad.l, y: height - 4, class: "tick" });
  first.textContent = String(points[0].x).slice(5, 10);
  const last = svg("text", { x: width - pad.r, y: height - 4, class: "tick", "text-anchor": "end" });
  last.textContent = String(points[points.length - 1].x).slice(5, 10);
  root.append(first, last);
  return root;
}
