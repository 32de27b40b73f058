// Talking to the daemon: the token kept in localStorage goes on every request; a 401
// sends the user back to the sign-in form. Server-Sent Events are read from a fetch
// body, since EventSource cannot send an Authorization header.

const KEY = "homeagent.token";
let onUnauthorized = () => {};

export const token = {
  get: () => localStorage.getItem(KEY) || "",
  set: (value) => localStorage.setItem(KEY, value),
  clear: () => localStorage.removeItem(KEY),
};

export function whenUnauthorized(fn) {
  onUnauthorized = fn;
}

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message || `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code;
  }
}

function headers(extra = {}) {
  const h = { ...extra };
  const tok = token.get();
  if (tok) h.Authorization = `Bearer ${tok}`;
  return h;
}

export async function request(method, path, body, opts = {}) {
  const init = { method, headers: headers(body === undefined ? {} : { "Content-Type": "application/json" }) };
  if (body !== undefined) init.body = JSON.stringify(body);
  if (opts.signal) init.signal = opts.signal;
  const resp = await fetch(path, init);
  if (resp.status === 401 && !opts.quiet401) onUnauthorized();
  const text = await resp.text();
  const data = text ? JSON.parse(text) : null;
  if (!resp.ok) throw new ApiError(resp.status, data);
  return data;
}

export const get = (path, opts) => request("GET", path, undefined, opts);
export const post = (path, body, opts) => request("POST", path, body ?? {}, opts);
export const del = (path, opts) => request("DELETE", path, undefined, opts);

// Read an SSE response: calls onEvent(type, data, id) for every frame with data, and
// onId(id) for one that only moves the cursor (a stream's opening `id:` frame).
export async function readSSE(resp, onEvent, onId) {
  const reader = resp.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let type = "message", data = "", id = null;
      for (const line of frame.split("\n")) {
        if (line.startsWith("event:")) type = line.slice(6).trim();
        else if (line.startsWith("data:")) data += line.slice(5).trim();
        else if (line.startsWith("id:")) id = line.slice(3).trim();
      }
      if (data) {
        let parsed;
        try { parsed = JSON.parse(data); } catch { parsed = data; }
        onEvent(type, parsed, id);
      } else if (id !== null && onId) {
        onId(id);
      }
    }
  }
}

export async function stream(method, path, body, onEvent, opts = {}) {
  const init = { method, headers: headers(body === undefined ? { Accept: "text/event-stream" }
    : { "Content-Type": "application/json", Accept: "text/event-stream" }) };
  if (body !== undefined) init.body = JSON.stringify(body);
  if (opts.lastEventId) init.headers["Last-Event-ID"] = opts.lastEventId;
  if (opts.signal) init.signal = opts.signal;
  const resp = await fetch(path, init);
  if (resp.status === 401) onUnauthorized();
  if (!resp.ok) {
    let data = null;
    try { data = await resp.json(); } catch { /* not JSON */ }
    throw new ApiError(resp.status, data);
  }
  await readSSE(resp, onEvent, opts.onId);
}
