// The dashboard's words in Chinese and English. The language follows the browser
// (navigator.language) until the user picks one; the choice is kept in localStorage.

const STRINGS = {
  en: {
    title: "HomeAgent", login: "Sign in", token: "Token", tokenHint: "A member's token or the household token",
    signIn: "Open", signOut: "Sign out", badToken: "That token was not accepted.",
    chat: "Chat", today: "Today", memory: "Memory", runs: "Runs", box: "Box", settings: "Settings",
    send: "Send", placeholder: "Say something…", thinking: "…", forget: "Forget this",
    forgotten: "Forgotten", confirm: "Confirm", deny: "Deny", allowSession: "Allow for this session",
    permissionAsk: "Needs your confirmation", confirmed: "Confirmed", denied: "Denied",
    waitingElsewhere: "Waiting for confirmation", fromChannel: "from",
    tasks: "Tasks", events: "Events", habits: "Habits", shopping: "Shopping list", water: "Water",
    sleep: "Sleep", mood: "Mood", money: "Spending", nothing: "Nothing here.", add: "Add",
    newTask: "New task…", newItem: "Add to the list…", checkIn: "Check in", done: "Done", bought: "Bought",
    delete: "Delete", streak: "streak", best: "best", checkedToday: "done today", reallyDelete: "Delete this?",
    graph: "Graph", documents: "Documents", context: "Working context", search: "Search…",
    entities: "entities", facts: "facts", current: "holds", past: "ended", since: "since", until: "until",
    accessCount: "reads", lastAccess: "last read", never: "never",
    status: "Status", provider: "Provider", chain: "Chain", cooldown: "cooling for", model: "Model",
    usage: "Usage (7 days)", budget: "Cloud budget today", heartbeats: "Heartbeats", tokens: "tokens",
    requests: "requests", run: "Run", trace: "Trace", duration: "duration", noRuns: "No runs yet.",
    members: "Members", config: "Configuration", pushed: "Message", reminder: "Reminder", language: "中文",
    failed: "Failed", tool: "Tool", toolCalls: "tool calls", args: "Arguments", result: "Result",
    late: "late", snooze: "Later", acknowledge: "Got it", snoozedUntil: "Snoozed until", acknowledged: "Acknowledged",
  },
  zh: {
    title: "HomeAgent", login: "登录", token: "令牌", tokenHint: "成员令牌或家庭令牌",
    signIn: "进入", signOut: "退出", badToken: "令牌无效。",
    chat: "对话", today: "今天", memory: "记忆", runs: "运行", box: "主机", settings: "设置",
    send: "发送", placeholder: "说点什么…", thinking: "…", forget: "忘掉这条",
    forgotten: "已忘记", confirm: "确认", deny: "拒绝", allowSession: "本次会话都允许",
    permissionAsk: "需要你确认", confirmed: "已确认", denied: "已拒绝",
    waitingElsewhere: "等待确认", fromChannel: "来自",
    tasks: "任务", events: "日程", habits: "习惯", shopping: "购物清单", water: "喝水",
    sleep: "睡眠", mood: "心情", money: "支出", nothing: "暂无内容。", add: "添加",
    newTask: "新任务…", newItem: "加入购物清单…", checkIn: "打卡", done: "完成", bought: "已买",
    delete: "删除", streak: "连续", best: "最长", checkedToday: "今天已打卡", reallyDelete: "确定删除？",
    graph: "图谱", documents: "文档", context: "工作上下文", search: "搜索…",
    entities: "实体", facts: "事实", current: "有效", past: "已失效", since: "自", until: "至",
    accessCount: "读取次数", lastAccess: "最近读取", never: "从未",
    status: "状态", provider: "模型服务", chain: "服务链", cooldown: "冷却", model: "模型",
    usage: "用量（7 天）", budget: "今日云端额度", heartbeats: "心跳记录", tokens: "词元",
    requests: "请求", run: "运行", trace: "轨迹", duration: "耗时", noRuns: "还没有运行记录。",
    members: "成员", config: "配置", pushed: "消息", reminder: "提醒", language: "English",
    failed: "失败", tool: "工具", toolCalls: "次工具调用", args: "参数", result: "结果",
    late: "迟到", snooze: "稍后提醒", acknowledge: "知道了", snoozedUntil: "已推迟到", acknowledged: "已确认",
  },
};

const KEY = "homeagent.lang";

export function currentLang() {
  const chosen = localStorage.getItem(KEY);
  if (chosen === "zh" || chosen === "en") return chosen;
  return (navigator.language || "en").toLowerCase().startsWith("zh") ? "zh" : "en";
}

export function setLang(lang) {
  localStorage.setItem(KEY, lang);
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
}

export function t(key) {
  const table = STRINGS[currentLang()];
  return table[key] ?? STRINGS.en[key] ?? key;
}
