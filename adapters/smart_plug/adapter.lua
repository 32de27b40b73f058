-- The smart plug adapter: every tool is a function taking the validated arguments.
-- Host API: http.get(url) / http.post(url, body) -> {status=, body=}; json.decode/encode;
-- state.get(key) / state.set(key, value); log(message); host (the manifest's first host).
-- mqtt.publish(topic, payload[, qos, retain]) where adapters.mqtt is set (manifest: mqtt_topics).

local function relay(query)
  local url = "http://" .. host .. "/relay/0" .. (query or "")
  local response = http.get(url)
  if response.status ~= 200 then
    error("the plug answered HTTP " .. response.status)
  end
  return json.decode(response.body)
end

function status(args)
  local data = relay()
  state.set("last_seen_on", data.ison)
  return {on = data.ison, power_w = data.power or 0}
end

function switch(args)
  local data = relay(args.on and "?turn=on" or "?turn=off")
  local switches = (state.get("switches") or 0) + 1
  state.set("switches", switches)
  log("switched " .. (data.ison and "on" or "off"))
  return {on = data.ison, switches = switches}
end
