"""The intent layer: a step of the turn before the model.

`IntentLayer.route(interrupt, tools)` decides one of:
- `answer`: the layer answers itself (who it is, what it can do, a missing-slot question);
- `calls`: the action(s) to run with no model call (confidence above the calibrated
  threshold, every required argument filled); the answer is the actions' result text;
- `model`: the model turn runs as today, offered the layer's ranked candidates (for a
  question, read actions only; for small talk, no action at all).

Questions never write: an utterance that asks ("我还有哪些任务", "is milk on the list?")
is routed to a read action or to the model with read actions only.

The layer keeps, per member and channel, the record the last turn touched and a pending
missing-slot question, so "把它改到4点", "delete that one" and the answer to "要提醒什么？"
resolve in context. Corrections ("不是这个，我是说…", "no, I meant …") are stored as
training examples (`intent_examples`, migration 160) and the classifier retrains at the
heartbeat, in a worker thread.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import timedelta
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

import anyio

from homeagent.actions.base import CATEGORIES
from homeagent.actions.dates import DateError, parse_when
from homeagent.actions.repeat import find_repeat
from homeagent.actions.sql import restore
from homeagent.chat import ToolCall, ToolDef
from homeagent.clock import Clock
from homeagent.errors import ToolError
from homeagent.intent.asides import (
    clause_note,
    kept_at,
    loan_en,
    loan_zh,
    money_note,
    people,
    purpose_note,
    take_tags,
    whose_note,
)
from homeagent.intent.classifier import IntentModel, Prediction
from homeagent.intent.cues import destination
from homeagent.intent.filters import metric_named, read_filters
from homeagent.intent.fuzzy import (
    HEAD_COLON,
    KINDS_VOCABULARY,
    fix_typos,
    strip_fillers,
    strip_hedges,
)
from homeagent.intent.listing import (
    NEXT_PAGE_RE,
    Listing,
    again_args,
    asked_again,
    listing_of,
    named_row,
    named_words,
    ordinal,
    row_of,
)
from homeagent.intent.mainland import as_typed, read_as_mainland
from homeagent.intent.objects import CREATES, category_said, names_apart, note_words
from homeagent.intent.records import TITLE_EN, contact
from homeagent.intent.shift import Shift, apply_shift, bare, find_shift, name_of
from homeagent.intent.slots import (
    command_clause,
    find_day,
    find_mode,
    find_when,
    generic,
    is_when,
    match_clauses,
    match_template,
    split_items,
    strip_command_clauses,
    strip_polite,
    zh_reading,
)
from homeagent.intent.spans import Spans
from homeagent.intent.spans import load as load_spans
from homeagent.intent.spoken import as_written
from homeagent.intent.structured import measures, pairs, structured
from homeagent.intent.tidy import done_said, quoted_names, tidy, undated_name, unquoted
from homeagent.intent.training import (
    HELP_LABEL,
    NONE_LABEL,
    WHO_LABEL,
    Example,
    LazyTemplates,
    Template,
    generate,
    homophones,
    phrasings,
    phrasings_digest,
)
from homeagent.log import get_logger
from homeagent.numbers import NUM, find_number, parse_number
from homeagent.store import Database
from homeagent.text import has_han
from homeagent.tools.registry import Permission, ToolContext, ToolRegistry, ToolResult

log = get_logger("homeagent.intent")

_QUESTION_RE = re.compile(
    r"(?:吗|么|呢)[\s？?。!！]*$|[？?]\s*$|什么|哪|多少|是谁|谁(?=[的在有借拿去来写说做])|(?:给|借给|还给|找|问|和|跟)谁|(?<![好十歇过等这那前后隔])(?<!休息)(?<!最近)几(?:[个天次点本杯瓶号岁斤块遍回颗片粒顿度份张件条]|分(?!钟)|公[斤里])"
    r"|(?<![很好太许更最])多(?:重|高|长|大|远|久|贵|宽|厚|深|胖)(?:了|啊|呀|来着)?[\s？?。!！]*$"  # 大橘多重: how heavy
    r"|怎么样|咋样|如何|有没有|是不是|是否|要不要|需不需要|该不该|够不够|有啥|(?<!那个)(?<!那)啥|(?:对吧|是吧|对不对|没错吧|对不)[\s。!！]*$|"
    r"^(?:(?:so|and|but|ok|okay|oh|um|uh|hey|well|wait)[\s,，]+)*(?:what|which|who|whom|whose|where|when|how|is|are|am|was"
    r"|were|do|does|did|have|has|any|should|shall|can i|may i)\b"
    # a tag question: "I took my pills, didn't I", "that's done, right"
    r"|[,，]\s*(?:(?:did|do|does|is|are|was|were|have|has|had|wo|ca|could|would|should)n['’]?t)"
    r"\s+(?:i|we|you|it|he|she|they|there)[\s?.!]*$|[,，]\s*(?:right|correct)\s*[?.!]*$"
    # a question after a lead ("quick question, did I …", "remind me what the code was")
    r"|^[^,，:：]{0,24}[,，:：]\s*(?:(?:did|do|have) (?:i|we)|(?:is|are|was|were) there)\b"
    r"|\bremind me[\s,，]+(?:what|which|who|how many|how much|how long)\b"
    r"|\b(?:tell me|do you know|i wonder|any idea)[\s,，]+(?:what|which|who|when|where|whether|if|how)\b"
    # an order to look something up: "search my wishlist for…", "check which mode we're in"
    r"|^(?:(?:please|ok|okay|hey)[\s,，]+)?(?:search (?:my|our|the)\b|look up\b|look (?:in|through) (?:my|our|the)\b"
    r"|find out\b|check (?:which|what|whether|if|how|when|where|who)\b)"
    r"|吗[，,]",
    re.I,
)
# Asking whether something happened or is there, even around polite words ("帮我…了吗？").
_ASKS_RE = re.compile(r"(?:了吗|了么|了没有?|过吗|过\S{0,2}没有?|\S没)[\s？?。]*$|^(?:我)?是不是|有没有.*[？?]$|^(?:did|do|does|have|has|is|are|was|were)"
                      r" (?:i|we|you|it|there|my|the)\b|^is it true"
                      # not knowing said as a statement: "I can't remember if we've got…", "我不记得是不是…"
                      r"|^(?:(?:so|um|uh|hmm|oh|well)[\s,，]+)*(?:i\s+(?:can(?:no|'|’)?t|don(?:'|’)?t|do not|cannot)\s+(?:remember|recall|know)"
                      r"|i\s+(?:forget|forgot|have forgotten|'ve forgotten)|(?:i'm|i am|im)?\s*not\s+sure)[\s,，]+(?:if|whether|what|which|who|when"
                      r"|where|how)\b|^(?:我|俺)?(?:不记得|记不得|记不清|想不起来?|忘了|不确定|不知道)[^，,。]{0,6}?(?:有没有|是不是|还剩|还有没有|几|多少|什么|哪)",
                      re.I)
# A particle after a question ("降压药吃了没啊"): the question is what comes before it.
_PARTICLE_RE = re.compile(r"[啊呀呢吧哦嘛哈]+[\s？?。!！~～]*$")
_REQUEST_RE = re.compile(r"(?:^|[,，;；]\s*)(?:(?:so|then|and)\s+)?(?:can|could|would|will) you\b|^please\b|帮我|麻烦|能不能帮|可以帮"
                         r"|请(?!问)", re.I)
# A kind of record asked for by name ("帮我记个待办：…"): no showing frame ("…找出来") after it.
_NAMED_KIND_ZH_RE = re.compile(r"(?:记|加|建|添|新建|创建|来)(?:一?个|一条|一项)?(?:待办|任务|日程|提醒)[：:，,]")
# What must be done by a deadline ("下周三之前要把疫苗本找出来"): a to-do, though it says "find".
_DUTY_RE = re.compile(r"(?:之前|以前|前)(?:一定)?(?:要|得|必须)")
# Asked to find something out: a request around a question is still a question ("帮我查一下
# 我吃了几次药", "can you tell me how many tasks are left").
_FIND_OUT_RE = re.compile(r"查|看看|看一下|瞧瞧|告诉我|说说|列一下|找找|找一下|搜|数一?下|算一?下"
                          r"|\b(?:check(?! (?:off|in|it|that|them))(?!-)|tell me|show|find|look|see|let me know|count"
                          r"|work out|figure out|remind me (?:what|which|when|where|how|who|whether|if))\b", re.I)
_WHO_RE = re.compile(r"你是谁|你叫什么|介绍一下你自己|你是什么|你是哪位|您是哪位|who are you|what(?:'s| is) your name|introduce yourself|what are you\b"
                     r"|who am i (?:talking|speaking|chatting) (?:to|with)", re.I)
_HELP_RE = re.compile(
    r"你能做什么|你会做什么|你会什么|你都会|会些什么|能干什么|你有什么功能|你能帮我做什么|能帮我干什么|怎么用你|^帮助$|^help\b|what can you do|what do you do"
    r"|how can you help|what can i ask|what are you able to|what (?:else )?(?:do|can) you (?:actually |even |really )do\b|^menu[?？!.]*$"
    r"|^commands[?？!.]*$",
    re.I,
)
_PRONOUN_RE = re.compile(r"它|这个|那个|这条|那条|刚才那|刚刚那|\bit\b|\bthat one\b|\bthat\b|\bthis one\b|\bthe last one\b", re.I)
# A record named before a pointing word: "打印合同那个", "周报那条".
_NAMED_THAT_ZH = re.compile(r"(?P<x>[\u4e00-\u9fffA-Za-z0-9]{2,12})(?:那个|这个|那条|这条)")
_NAME_LEAD_ZH = re.compile(r"^(?:还有|另外|然后|把|就|也|再|是|给|将)+")
_AGAIN_RE = re.compile(r"^(?:那就?|then\s+|ok(?:ay)?,?\s+)?(?:(?:再|还要|另外)\s*(?:加|买|来|记|建|创建|添|设|存|弄|整)|also add|add another|and another|one more)"
                       r"\s*(?:一个|一份|一些|一条|个|some|an?)?\s*[，,：:]?\s*", re.I)
_CORRECTION_RE = re.compile(r"^(?:不是这个|不对|错了|no[,，]?\s*(?:not that)?)[\s，,。.]*(?:我是说|我说的是|是|i meant|i mean)?\s*", re.I)
_UNDO_RE = re.compile(
    r"^(?:(?:不对|错了|不是|no|oops)[\s，,。.!！]*)?(?:撤销|撤消|撤回|撤了吧|取消刚才的?(?:操作|那步)?|刚才的?不算|回退|退回|undo|take (?:that|it) back"
    r"|revert)(?:\s*(?:一下|刚才的?|上一步|那一步|操作|吧|that|it|this|the last (?:one|step|action)|last|please))*[\s。.!！]*$",
    re.I,
)
# "不是这个，是周报那个", "no, not that one, the landlord one": the same action, another record.
_RETARGET_RE = re.compile(
    r"^(?:(?:等下|等等|等一下|哦|啊|哎)[\s，,。]*)?(?:不是这个|不是那个|不是这条|不对|错了)[\s，,。]*(?:是|我说的是|我是说|应该是|要的是|删掉?|改|完成)\s*"
    r"(?P<zh>[^，,。]{1,12}?)\s*(?:的那个|那个|那条|那件|的那条|的)[\s。！!]*$"
    r"|^(?:(?:wait|hang on|sorry|oops)[\s,，.]*)?(?:no[\s,，.]*)?(?:not (?:that|this) one[\s,，.]*)?(?:i meant |i mean |it'?s |it was )?"
    r"the (?:one (?:about|for|with|called) (?:the |my )?(?P<en2>[\w' -]{1,40}?)|(?P<en>[\w' -]{1,40}?) one)[\s.!]*$",
    re.I,
)
_FREQUENCY_RE = re.compile(r"(?P<weekly>每周|每星期|每个星期|每礼拜|\bweekly\b|\bevery week\b|\b(?:once|twice|\w+ times) a week\b)"
                           r"|每天|每日|天天|\bdaily\b|\bnightly\b|\bevery (?:day|night|morning|evening)\b", re.I)
_VERB_WORDS = (
    ("delete", re.compile(r"删|取消|不要了|去掉|delete|remove|cancel|get rid", re.I)),
    ("complete", re.compile(r"完成|做完|办完|办好了|弄完|干完|搞完|搞定|买了|买到|买好|已经买|done|finished|complete|\bgot\b|bought|picked up", re.I)),
    ("update", re.compile(r"改|换|推迟|提前|挪|暂停|恢复|归档|补充|加一句|change|move|reschedule|push|update|make it|pause|resume"
                          r"|prepone|postpone|bring (?:it|that) forward|shift"
                          r"|archive|\badd\b.+\bto (?:it|that)\b|append|make that", re.I)),
)
_MODELS: dict[str, IntentModel] = {}
# The words that look a record up; a follow-up has its record's id instead.
_LOOKUP_KEYS = ("content", "title", "habit", "item", "person", "dish", "label", "plant", "pet", "query")
# One field of the record just touched, named and given (`_field_change`).
_FIELD_RES = (
    # ("地方搞错了 是重医附一院", "location 4B conf room": a place said wrong, put right)
    ("location", re.compile(r"^(?:and\s+)?(?:地点|位置|地方|地址)(?:搞错了|弄错了|写错了|说错了|错了|不对)?[，,\s]*(?:就|应该)?"
                            r"(?:在|是|改成|改为|换成|定在|改到|[:：])\s*(?P<v>[^，,。]{2,30})[。.!！]*$"
                            r"|^(?:and\s+)?(?:the\s+)?(?:location|place|venue)\s*(?:is|will be|should be|[:：]|'s)?\s+(?!of\b|for\b)(?P<v2>[^?]{2,40}?)[.!]*$"
                            # "It's at the town hall", "it's in the school hall, add that": where the event is
                            r"|^(?:oh,?\s+)?(?:and\s+)?(?:it's|it is|it'll be|it will be)\s+(?:at|in)\s+(?:the\s+)?"
                            r"(?P<v3>[^,.!?]{2,40}?)(?:,?\s+(?:add|put|note)\s+that(?:\s+in)?)?[.!]*$", re.I)),
    # "Due next Wednesday", "it's due on the 20th": the task just made is due then.
    ("due", re.compile(r"^(?:oh,?\s+)?(?:and\s+)?(?:it's\s+|it is\s+|it'll be\s+)?due\s+(?:on\s+|by\s+)?(?P<v>[^,.!?]{2,30}?)[.!]*$"
                       r"|^(?:截止|期限)(?:日期|时间)?(?:是|在|改成|为|[:：])\s*(?P<v2>[^，,。]{2,20})[。!！]*$", re.I)),
    ("tags", re.compile(r"^(?:再)?(?:加个|加一个|打个|添加|添个|加|贴个)?标签[，,：:\s]*(?:是|为)?\s*[“\"]?(?P<v>[^，,。”\"]{1,12})[”\"]?[。.!！]*$"
                        r"|^(?:and\s+)?tag (?:it|that|this)(?:\s+(?:as|with))?\s+[\"']?(?P<v2>[\w -]{1,20}?)[\"']?[.!]*$", re.I)),
    # "Put it at the Iron Temple gym", "放在社区医院": where the event just made is (a time is no place).
    ("location", re.compile(r"^(?:oh,?\s+)?(?:and\s+)?(?:put|have|make|set)\s+(?:it|that)\s+(?:at|in)\s+(?:the\s+)?"
                            r"(?!\d|noon|midnight|half|quarter|tomorrow|tonight|today|next|this|same|usual|the same|eleven|twelve|ten\b|nine|eight"
                            r"|seven|six|five|four|three|two|one\b)(?P<v>[^,.!?]{2,40}?)[.!]*$"
                            r"|^(?:就|那就)?(?:放在|约在|定在)(?![\d一二两三四五六七八九十]|周|星期|礼拜|今|明|后天|大后天|上午|下午|中午|晚上|早上|凌晨"
                            r"|下周|这周|本周|下个|月|号)(?P<v2>[^，,。]{2,20})[吧。.!！]*$", re.I)),
    # "mark it high priority", "设成高优先级", "优先级改成高": how much the task just made matters.
    ("priority", re.compile(r"^(?:oh,?\s+)?(?:and\s+)?(?:also\s+)?(?:please\s+)?(?:mark|make|set|flag)\s+(?:it|that|this)(?:\s+as)?"
                            r"\s+(?:a\s+)?(?P<v>high|low|medium|top|urgent)(?:\s+priority)?[.!]*$"
                            r"|^(?:再)?(?:把它|把这个|这个)?(?:设|改|标|调)?(?:成|为)?(?P<v2>高|低|中)优先级[吧。！!]*$"
                            r"|^优先级(?:设|改|调)?(?:成|为|是)?(?P<v3>高|低|中)[吧。！!]*$", re.I)),
    # "标题叫车险吧", "title it Car insurance": the name of the record just made.
    ("new_title", re.compile(r"^(?:那)?(?:标题|题目)(?:就)?(?:叫|是|改成|改为|换成|用|[:：])\s*[“\"「]?(?P<v>[^，,。”\"」]{1,30})[”\"」]?[吧。.!！]*$"
                             r"|^(?:and\s+)?(?:title|call|name)\s+(?:it|that|the note)\s+[\"'“]?(?P<v2>[^\"'”]{1,40}?)[\"'”]?[.!]*$", re.I)),
    # "and make that every Sunday", "每个星期天都要": the record just made repeats.
    ("repeat", re.compile(r"^(?:and\s+|oh,?\s+)?(?:make|set|have)\s+(?:it|that|this)\s+(?:repeat\s+)?(?P<v>every\s+\w+(?:\s+\w+)?|daily|weekly|monthly|fortnightly)[.!]*$"
                          r"|^(?:改成|设成|设为|改为)?(?P<v2>每(?:天|日|周[一二三四五六日天]?|个?星期[一二三四五六日天]|个?礼拜[一二三四五六日天]|个?月\S{0,4}|年))"
                          r"(?:都要|都有|重复|一次)?[吧。!！]*$", re.I)),
    ("append", re.compile(r"^(?:再)?(?:补充一句|补充一下|补一句|补充|加一句|添一句)[，,：:\s]*(?P<v>.{2,80})$"
                          r"|^(?:and\s+)?(?:also\s+)?add (?:that|this)\s*[:,]?\s+(?P<v2>.{2,80}?)[.!]*$", re.I)),
)
# "那个什么，" while the word is searched for: no question.
_WHAT_FILLER_RE = re.compile(r"(?:那个|那)什么(?:来着)?\s*[，,、]")
# An order with a tag asking whether it can be done ("Add Milo to the list can?", "…, change the
# deadline to 20 March can or not?"): a request, not a question.
_TAG_REQUEST_RE = re.compile(r"(?:^|[,，;]\s*)(?:pls\s+|please\s+|can\s+)?(?:add|remind|put|delete|remove|set|create|make|book"
                             r"|log|record|change|move|cancel|save|mark|tick|note|track|schedule|chope)\b.*\b(?:can|can or not"
                             r"|can anot|ok|okay)\s*[?？]+\s*$", re.I)
# What one goes off to do, said where a place would be ("喝酒去了", "吃饭去了"): no place.
_DOING_NOT_PLACE_ZH = re.compile(r"(?:喝|吃|睡|玩|打|看|买|做|洗|遛|逛|跑|钓|唱|泡|撸|搓)[\u4e00-\u9fff]{0,2}"
                                 r"(?<![店馆院站场园楼路街家司校区城村寺庙湖山])")
# The same again ("…as well", "昨天也跑了"): see `_another_day`.
_ALSO_RE = re.compile(r"也|同样|一道|一起|照样|\b(?:as well|too|also|again)\b", re.I)
_WHILE_AT_IT_RE = re.compile(r"[,，]?\s*(?:while (?:you're|you are|we're|we are) at it|as well|too)(?=[\s.!]*$)", re.I)
_PRIORITY_WORDS = {"high": "high", "top": "high", "urgent": "high", "高": "high", "medium": "medium", "中": "medium",
                   "low": "low", "低": "low"}
# A question about part of what was just listed: "有酱油吗", "其中餐饮多少", "is there coffee on
# it?", "how much of that was groceries?".
_IN_IT_RE = re.compile(r"其中|这里面|那里面|这些里|里面有|上面有|\b(?:on|in) (?:it|there|that|them)\b|\bof (?:that|those|them|it)\b"
                       r"|\bamong (?:them|those)\b", re.I)
_NARROW_RE = re.compile(rf"{_IN_IT_RE.pattern}|^(?:有|有没有|还有)\S{{1,10}}(?:吗|么|没有?)[？?]*$|^(?:is|are) there\b|^any\b",
                        re.I)
_BARE_PRONOUN_RE = re.compile(r"它|这个|那个|这条|那条|it|that|this|that one|this one", re.I)
_LOOKUP_NOUN_RE = re.compile(r"(?:\s+(?:task|note|event|habit|appointment|countdown|goal)|那个任务|这个任务|任务|那条笔记|笔记"
                             r"|这个习惯|习惯|的目标|目标|倒计时|那个待办|这个待办|待办|这件事|那件事|已经|先)$", re.I)
# A note said as one: "备注要43码", "备注一下：每次十分钟", "Note: bring the report card".
_NOTE_RE = re.compile(r"[，,；;]?\s*(?:(?:备注|注明|附注)(?:一下|是|为|下)?\s*[:：]?|\b(?:notes?|memo)\s*[:：-])\s*"
                      r"(?P<n>[^，,。；;.!?！？]{1,60})", re.I)
# A record by its number: "3号任务", "第6项", "4号笔记" (a day would be "3号的任务").
_RECORD_KINDS_ZH = (r"任务|待办|事项|提醒|食谱|菜谱|日程|行程|活动|券|优惠券|代金券|笔记|便签|备忘|倒计时|倒数日|联系人|联系方式"
                    r"|生日|地址|习惯|目标|心愿|愿望|灵感|想法|点子|日记|梦|书|电影|countdown|todo|to-do|task|reminder|note|recipe|coupon")
_COMMAND_HEAD_ZH = re.compile(
    rf"^(?:帮我|请|麻烦)?\s*(?:添加|新建|新增|创建|建|加|收藏|保存|存|记|set|add|create|make)\s*(?:一下|一个|一张|一条|一道|一篇|个|张|条|道|篇|a|an)?\s*"
    rf"(?:{_RECORD_KINDS_ZH})\s*(?:[：:，,]\s*|\s+|(?=[\u4e00-\u9fff]{{2}}))(?=\S{{2}})", re.I)
_ADDRESSED_RE = re.compile(r"你|您|\b(?:you|your|yours|yourself|u|ur|ya|bot|assistant|ai)\b|机器人|助手|人工智能|称呼|是谁|是什么",
                           re.I)
_DUE_EN_RE = re.compile(r"\bdue\s+(?:by\s+|on\s+)?(?:today|tomorrow|tonight|next|this|mon|tues|wednes|thurs|fri|satur|sun|the\s+\d|\d"
                        r"|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)", re.I)
_CONTACT_RE = re.compile(r"(?<!\d)1[3-9]\d[\s-]?\d{4}[\s-]?\d{4}(?!\d)|\b[\w.+-]+@[\w-]+\.[\w.]+\b|电话|手机号?|邮箱|\bphone\b|\bemail\b",
                         re.I)
# (a route needs more than two decimals a side, or the word: "12.50, 3.50" may be two prices)
_SURE_COORDINATES_RE = re.compile(r"\.\d{3,}\s*[,，]\s*-?\d{1,3}\.\d{3,}|坐标|coordinates", re.I)
_COORDINATES_RE = re.compile(r"(?<![\d.])-?\d{1,2}\.\d{2,}\s*[,，]\s*-?\d{1,3}\.\d{1,}(?![\d.])")
# "再加300", "又多了一本", "another 50": more of what the one goal shown counts.
_ADD_MORE_RE = re.compile(rf"^(?:再|又|还)?(?:加|多了|增加|添)了?\s*{NUM}\s*\S{{0,3}}?[。！!]*$"
                          rf"|^(?:add\s+)?(?:another|\d+(?:\.\d+)?\s+more)(?:\s+\w+)?[.!]*$", re.I)
_TITLE_MARKS_RE = re.compile(r"《[^《》]{1,40}》")
_HELD_COMMA, _HELD_COMMA_EN = "\ue000", "\ue001"  # (private-use characters: no one types them)
# A value that opens with its field's name: "标签姥姥家", "标题叫车险，…", "内容是：…".
_FIELD_HEAD_ZH = re.compile(r"^(?P<f>标签|标题|名字|名称|内容|备注)(?:就)?(?:是|叫|为|写)?\s*[：:]?\s*(?=\S)")
_HONORIFIC_RE = re.compile(r"\b(Mr|Mrs|Ms|Dr|Prof|St|Mt)\.\s+(?=[A-Z])")
_COMMAND_LEAD_ZH = re.compile(r"^(?:帮我|请|麻烦)?\s*(?:新建|新增|添加|创建|建)\s*(?:一个|一条|一项|个|条)\s*(?=\S{2})")
_THOUSANDS_RE = re.compile(r"(?<![\d,.])\d{1,3}(?:,\d{3})+(?![\d,]|\.\d)|(?<![\d,.])\d{1,3}(?:,\d{3})+\.\d+")
_URL_RE = re.compile(r"https?://[^\s，。；！？“”‘’（）\u4e00-\u9fff]+[^\s，。；！？“”‘’（）\u4e00-\u9fff.,;:!?)]", re.I)
_NUMBERED_RE = re.compile(r"第\s*(\d{1,4}|[一二两三四五六七八九十]{1,3})\s*(?:项|条|个|件|号)(?!次|天|周|月|年)|(\d{1,4})\s*号\s*(?=任务|待办|日程|活动|习惯|笔记|便签|留言|倒计时|目标|物品"
                          r"|东西|记录|事项)|\b(?:number|no\.|item|task|entry)\s*#?\s*(\d{1,4}|one|two|three|four|five|six|seven|eight"
                          r"|nine|ten|eleven|twelve)\b(?!\s*(?:am|pm|:|点|号|st|nd|rd|th|o'clock))"
                          # "任务五不要了", "笔记三的标签": the kind, then its number (no count of a unit)
                          r"|(?:任务|待办|日程|习惯|笔记|便签|倒计时|目标)\s*(\d{1,4}|[一二两三四五六七八九十]{1,3})"
                          r"(?![\d一二两三四五六七八九十]|\s*[点号月天周年个次分块元公斤本里米遍页岁件杯瓶盒])", re.I)
# A record looked up by its words, without what only places it: "明天的瑜伽课", "关于旧密码".
_LOOKUP_LEAD_RE = re.compile(r"^(?:关于|有关|(?:今天|明天|后天|昨天|这周|本周|下周|(?:这|下)?(?:周|星期)[一二三四五六日天])的)")
_MEETING_WITH_RE = re.compile(r"^(?:和|跟|与)(?P<who>[\u4e00-\u9fffA-Za-z]{1,8}?)(?:的|那个|开的|那场|这个)(?:会议|会)$"
                              r"|^(?:(?:the\s+)?meeting|call|catch-up)\s+with\s+(?P<who2>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)$")
_ENTITY_NOUNS = (
    ("task", re.compile(r"任务|待办|\btasks?\b|\bto-?dos?\b", re.I)),
    ("event", re.compile(r"日程|日历|\bcalendar\b|\bevents?\b", re.I)),
    ("habit", re.compile(r"习惯|\bhabits?\b", re.I)),
    ("note", re.compile(r"笔记|\b(?:the|my|a) notes?\b", re.I)),
)
# What one more of the same keeps from the record before it.
_CARRIED_KEYS = ("pet", "plant", "person", "kind", "status", "type", "direction", "currency", "meal")
_CHANGE_LEAD_RE = re.compile(r"(?:改成|改为|改到|换成|调成|调到|make it|change it to)", re.I)
# The same read again with one thing changed (see `_read_again`).
_READ_AGAIN_RE = re.compile(
    r"^(?:(?:and|so|ok|okay|hmm)[\s,]+)?(?:what|how)\s+about\s+(?P<a>.+?)[\s?？.!]*$"
    r"|^(?:and|also)\s+(?:for\s+|on\s+)?(?P<b>[^,，]{2,30}?)[\s?？.!]*$"
    r"|^(?:那|还有)?(?P<c>[^，,。？?]{1,12}?)(?:的)?呢[\s？?。!！]*$"
    r"|^那?(?:只要|就要|给我|要|看)?(?:前)?(?P<n>\d+|[一二两三四五六七八九十]+)\s*条(?:结果)?(?:就行|就好|就够了?|吧)?[\s。!！]*$"
    r"|^(?:just\s+)?(?:give me\s+)?(?:the\s+)?(?:top|first)\s+(?P<n2>\d+|three|five|ten)\b.*$"
    # narrowed by a filter: "just the high priority ones", "only the done ones", "只看高优先级的"
    r"|^(?:and\s+)?(?:just|only)\s+(?:show\s+(?:me\s+)?)?(?:the\s+)?(?P<f>[a-z][\w -]{1,28}?)(?:\s+ones?)?[\s?.!]*$"
    r"|^(?:那)?(?:只看|只要|就看|只列|只显示)(?P<fz>[^，,。？?]{1,12}?)(?:的)?[吧。!！]*$", re.I)
_NEXT_DAY_RE = re.compile(r"(?:the\s+)?day\s+(?:after|(?P<back>before))|(?:the\s+)?next\s+day|第二天|后一天|(?P<back2>前一天)", re.I)
_TOO_RE = re.compile(r"^and\s+(.+?)\s+(?:too|as well)[\s.!]*$", re.I)
_THE_ONE_RE = re.compile(r"^(?:the|my)\s+|\s+(?:one|task|item|habit|note)$", re.I)  # "the piano one": piano
_LOOKUP_ACTIONS = ("complete_", "delete_", "mark_", "check_in_")  # what acts on a record named
_AND_MORE_RE = re.compile(r"^(?:and|plus|also)\s+(?:some\s+|a\s+|an\s+)?(?P<x>[^?？,，]{2,30}?)[\s.!]*$|^(?:还有|再来)(?P<zh>[^?？，,]{1,10}?)[吧。！!]*$",
                          re.I)
_BARE_NUMBER_RE = re.compile(r"^(?:actually\s+|no\s*,?\s+|oh\s+|ok\s+|sorry\s*,?\s+)?(?:make|change)\s+(?:it|that)\s+(?:to\s+)?"
                             r"(?P<n>\d{1,2}(?::\d{2})?)\s*(?P<ap>am|pm)?(?P<clock>\s*o'clock)?(?:\s+instead)?[\s.!]*$"
                             r"|^(?:改成|改为|换成|改到)(?P<n2>\d{1,2}|[一二两三四五六七八九十]{1,3})(?:次|个)?(?:吧|就行)?[。！!]*$", re.I)
_ADD_IT_RE = re.compile(r"^(?:ok(?:ay)?|alright|then|yes|好的?|那就?|那)?[\s,，]*(?:please\s+)?(?:add|put|get|buy|加上?|买|记上)\s*"
                        r"(?:it|that|them|one|一下|上|吧)?\s*(?:on|to the list|then|please|吧|一个)?[\s.!。！]*$", re.I)
_REMIND_AT_RE = re.compile(r"^(?:每天|每日)?\s*(?P<t>(?:早上|上午|中午|下午|晚上)?\s*[\d一二两三四五六七八九十]{1,3}\s*[点點:：]\s*(?:半|[\d]{1,2}\s*分?)?)"
                           r"\s*提醒我(?:打卡)?[吧。！!]*$|^remind me (?:every day |daily )?at (?P<en>\d{1,2}(?::\d{2})?\s*(?:am|pm)?)"
                           r"(?:\s+(?:every|each)\s+(?:day|morning|evening|night)|\s+daily)?[.!]*$",
                           re.I)
_BARE_FILLER_RE = re.compile(r"[\s，,。.!！吧了啊呀哦嗯先]|^算了|^那就|^还是|^等等|^等一下|同一(?:个)?时间|同样的时间|原来的时间"
                             r"|\b(?:same time|instead|actually|wait|oh)\b", re.I)
_PRIORITY_TAIL_RE = re.compile(r"[，,]?\s*(?:优先级(?:是|为)?(?P<level>[高低]|中等?|普通|一般)|(?P<level2>[高低]|中等?|普通)优先级"
                               r"|(?P<level3>high|low|medium|normal) priority)\s*$", re.I)
# "提醒我…" / "remind me…" asks for a reminder: a task, unless it is an event's own reminder.
# Showing a list: a frame that only shows ("打开…", "把…调出来", "…拉出来看看", "pull up my …"),
# or the name of a list and nothing else ("习惯列表", "blood pressure history").
_SHOW_RE = re.compile(
    r"^(?:打开|看看|看一下|看一眼|给我看看?|显示|调出|列出|列一下|翻一下|翻翻|查看)(?!.*(?:模式|勿扰))"
    r"|(?:拉出来|调出来|翻出来|列出来|调出|找出来|筛出来)(?:给我)?(?:看看|看一下|瞅瞅|瞧瞧|我看看|我瞅瞅|我瞧瞧)?[\s。!！吧]*$"
    r"|(?:列个表|给我看看?|给我看一下|发我看看|打开看看|给我瞅瞅)[\s。!！吧]*$"
    r"|^(?:show me|show|pull up|bring up|open|display|let me see|go through|list)\b(?!.*\b(?:mode|lights?|door)\b)"
    r"|^(?:我的|my |the )?[^，,。！!？?\s]{0,10}(?:列表|清单|记录|日志)$"
    r"|^(?:my |the )?(?:[a-z]+ ){0,3}(?:log|history|list|records?)(?: (?:for )?(?:today|this week|this month))?$",
    re.I,
)
# Words that ask for a change: a showing frame with one of them is no showing.
_CHANGE_RE = re.compile(r"加|添|删|改|记一下|记到|放进|存|取消|(?<!已经)(?<!已)完成(?!了的|的)|标记|add|put|delete|remove|change|rename|mark|cancel|save"
                        r"|record|log (?:a|an|my|that)\b", re.I)
# Asking to keep something: "心情记一下：…", "log my mood: …" (a record, never a listing).
_RECORD_RE = re.compile(r"记一下|记一哈|记一笔|记上|记下|记个|帮我记|记到|记成|存一下|存个|登记|\blog (?:a|an|my|this|that|it)\b|\brecord (?:a|an|my|that|this)\b"
                        r"|\bnote (?:down|that)\b|\bjot\b", re.I)
# The command ahead of its content ("写日记：…", "Add a todo: …"): a view of its own.
_HEAD_RE = re.compile(rf"^(?P<head>[^，,：:。.!！?？]{{2,14}}?)(?:\s*[，,]|\s*{HEAD_COLON}|\s+[-–—])\s*\S")
# "上网搜一下…", "look up …": a request to search, even when what it searches for is a question.
# (English words said inside Chinese too: "search一下", where \b finds no edge)
_SEARCH_RE = re.compile(r"上网|联网|网上|搜一下|搜搜|搜索|百度一下|(?<![A-Za-z])(?:search|google|look up|look online)(?![A-Za-z])", re.I)
# A search asked for outright, whatever its subject asks: "查一下iPhone现在卖多少钱", "can you
# find some reviews of … online?".
_SEARCH_ASKED_RE = re.compile(
    r"^(?:请|帮我|麻烦|给我|你)?\s*(?:上网|网上|在网上)?\s*(?:查一下|查查|搜一下|搜搜|搜索一下|百度一下|谷歌一下)"
    r"|^(?:(?:can|could|would) you\s+|please\s+)?(?:search|google|look up)(?![A-Za-z])"
    r"|^(?:(?:can|could|would) you\s+|please\s+)?find\b.*\b(?:online|on the (?:web|internet))\b", re.I)
# A line headed by a kind's name and a colon: "点子：…", "Idea: …", "便签：…", "日记：…", "Dream: …".
_KIND_HEAD_RE = re.compile(r"^(?:(?P<create_idea>点子|灵感|想法|主意|idea)|(?P<create_memo>memo|便签|备忘)"
                           r"|(?P<write_diary>日记|diary|journal|dear diary)|(?P<record_dream>梦|dream))\s*[：:]\s*\S", re.I)
# Asking whether a thing was done, not asking for it: "帮我搜一下…了吗？", "did you search…?"
_ASKED_IF_DONE_RE = re.compile(r"了吗|了没|过吗|过没|\b(?:did|have|has)\s+(?:you|i|we)\b", re.I)
_REMIND_RE = re.compile(r"提醒我|提醒一下|\bremind me\b|\bset a reminder\b", re.I)
# Not a new reminder: one no longer wanted ("不用再提醒我…"), or a habit's check-in reminder.
_NO_MORE_REMINDER_RE = re.compile(r"(?:不用|不要|别|无需|不必|甭)再?提醒|\b(?:don'?t|do not|no need to|stop|quit) remind(?:ing)? me\b",
                                  re.I)
_NOT_A_REMINDER_RE = re.compile(rf"{_NO_MORE_REMINDER_RE.pattern}|打卡|\bhabit\b|\bcheck[- ]?in\b", re.I)
# An order after what was done ("Did my swim this morning, log it for the habit"): a
# statement with a request, though it opens like a question.
_TRAILING_ORDER_RE = re.compile(
    r"[,，;；]\s*(?:(?:please|pls|can you|could you)\s+)?(?:log|record|add|put|mark|save|note|track|count|tick|check|cross)\s+(?:it|that|this|them)\b"
    r"|[,，;；]\s*check me in\b|[，,；;]\s*(?:帮我)?(?:记一下|记一哈|记上|记下来|给记上|打个卡|记个账)[吧呗啊。！!]*$", re.I)
# A removal said as a clause of its own, at the end: "…，那条删了吧", "…, delete it".
_REMOVED_CLAUSE_RE = re.compile(r"[，,。；;]\s*(?:那条|这条|那个|这个|把它|它|那就)?\s*(?:删了|删掉|删除|去掉|取消|划掉)(?:掉|了|吧|吧。)*[。!！]*$"
                                r"|[,;.]\s*(?:just\s+|please\s+)?(?:delete|remove|scrap|drop|cancel)\s+(?:it|that|that one)[.!]*$",
                                re.I)
# A remark: said about the home, a feeling, a complaint ("我爸又在阳台偷偷抽烟了", "the cat keeps
# knocking things off the table lol"). Its marks are how it is said (a laugh, a sigh, "又在",
# "懒得", "the worst", "keeps …ing"); one of them and no request (`_ASKED_FOR_RE`) is no write.
_REMARK_RE = re.compile(
    r"嘿嘿|哈哈|呵呵|嘻嘻|唉|哎呀|烦死|气死|累死|笑死|无语|受不了|懒得|偷偷|怎么又|又在|又被|老是|总是|真是的|服了|崩溃|郁闷|讨厌"
    r"|被.{0,6}(?:夸|表扬|骂|嫌弃)|太.{1,4}了吧|(?:爸|妈|老公|老婆|孩子|儿子|女儿|猫|狗|邻居|宝宝)又"
    r"|^(?:the|my|our|his|her)\b.*\bagain\b"
    r"|\b(?:lol|lmao|haha\w*|hehe|ugh|omg|honestly|seriously|unbelievable|the worst|the best|so annoying|can't stand|sick of"
    r"|driving me|keeps? (?:on )?\w+ing|always|never)\b",
    re.I,
)
# What asks for a change, or holds a value to keep: a command word, an amount, a clock time.
_ASKED_FOR_RE = re.compile(
    r"帮|请|麻烦|记|提醒|加(?!班|油)|添|删|改|买|放进|放到|存|打卡|完成|搞定|划掉|勾掉|设|建|安排|取消|登记|标记|别忘|需要|要买|得买|该|给我|心情|情绪"
    r"|见底|用完|用光|\bout of\b|\boutta\b|\bran out\b|\brun out\b|\blow on\b"
    r"|\d|[一二两三四五六七八九十百千万半]\s*(?:个|次|杯|瓶|盒|袋|块|元|斤|公斤|分钟|小时|点|毫升|克|公里|分|颗|片)"
    r"|\b(?:remind|add|put|record|log|note|save|delete|remove|mark|cross|tick|set|create|schedule|track|need|needs|buy|get"
    r"|change|move|cancel|please|can you|could you|would you|let's|don't forget|make sure|write|book|start|stop|pause|mood"
    r"|feel|feeling|felt|one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|half|am|pm|o'clock"
    r"|reopen|archive|unarchive|rename|retag|nix|nuke|bung|jot|pin|bump|postpone|resume|unpause|scrap|ditch)\b",
    re.I,
)
# A remark's mark that is only a laugh or a sigh: "period started today ugh" still tells a record.
_SURE = 0.98  # the classifier's confidence that a laugh does not outweigh
_LAUGH_RE = re.compile(r"嘿嘿|哈哈|呵呵|嘻嘻|唉|\b(?:lol|lmao|haha\w*|hehe|ugh|omg)\b", re.I)
# What takes a record away: a delete with none of these words ("Inventory of the garage,
# please", "countdown for Tom's exam") is no delete, however sure the classifier is.
_REMOVE_RE = re.compile(
    r"删|取消|去掉|不要|划掉|移除|扔|丢|撤|清掉|拿掉|卖了|卖掉|送人|送掉|坏了|没了|不用了|不需要|算了|作废|不去了|不办了|不养了|不看了|不做了|去除|别记"
    r"|不用再?记|不用留|不再记"
    # (said inside Chinese too: "给cancel掉", where \b would find no edge)
    r"|干掉|甭要|不整了"
    r"|(?<![A-Za-z])(?:delete|remove|cancel|drop|scrap|scratch|axe|nix|strike|get rid|off|clear|erase|forget|ditch|bin|threw|throw|sold|gave away"
    r"|no longer|not happening|called off|trash|nuke|can go|stop tracking|stop|wipe|lose|kill)(?![A-Za-z])"
    r"|['’]s off\b|\bis off\b",
    re.I,
)
# A removal as the last clause, in the words that only delete (划掉 and "cross off" also mean done).
_DELETED_AT_END_RE = re.compile(r"[，,。；;]\s*(?:那条|这条|那个|这个|把它|它|那就|直接|就|都)?\s*(?:给我|给俺|帮我)?\s*(?:删了|删掉|删除|删喽|删)"
                                r"(?:掉|了|吧|喽|啦)*[。!！]*$|[,;.]\s*(?:just\s+|please\s+)?(?:delete|remove)\s+(?:it|that|that one)[.!]*$",
                                re.I)
# A time put right just after a record: "不是明天，是后天", "no, not Thursday, Friday", "Friday, not
# Thursday": the record's own time, said again.
_WHEN_FIX_RE = re.compile(
    r"^(?:不对[\s，,]*)?不是\s*(?P<zh_a>[^，,。]{1,12}?)\s*[，,]?\s*(?:而是|应该是|是|改成|改到)\s*(?P<zh_b>[^，,。]{1,16}?)[\s。!！吧啊]*$"
    r"|^(?:(?:no|sorry|oops)[\s,，]*)*not (?P<en_a>[\w' ]{1,24}?)[\s,，]+(?:but |it's |it is |i meant |i mean )?(?P<en_b>[\w' :]{1,30}?)[\s.!]*$"
    r"|^(?:(?:no|sorry|oops)[\s,，]*)*(?P<en_b2>[\w' :]{1,30}?)[\s,，]+not (?P<en_a2>[\w' ]{1,24}?)[\s.!]*$"
    # "不对不对，是周日，时间不变", "说错了，是后天": the right day alone, after a word that says it was wrong
    r"|^(?:不对|说错了|错了|搞错了|记错了|弄错了)(?:[\s，,]*(?:不对|说错了|错了))*[\s，,]*(?:应该是|是)\s*(?P<zh_c>[^，,。]{1,16}?)"
    r"(?:[\s，,]*(?:时间不变|时间照旧|其他不变|别的不变|其他照旧))?[\s。!！吧啊的]*$",
    re.I,
)
_ENUM_AFTER_MATCH = ("status", "meal", "kind", "type", "priority")
_VERBS = ("create", "add", "record", "update", "delete", "complete", "mark", "check_in", "list", "get", "write", "switch")


@dataclass(frozen=True)
class IntentSettings:
    enabled: bool = True
    top_k: int = 8
    threshold: float | None = None  # None: the calibrated one
    # What a wrong action costs against a right one answered without the model, for the
    # calibration; questions are kept from writes by their own rule, whatever the cost.
    cost: float = 1.0


@dataclass
class Route:
    """What the layer decided for one utterance."""

    path: str  # "intent" (calls or answer) or "model"
    label: str = NONE_LABEL
    confidence: float = 0.0
    calls: list[ToolCall] = field(default_factory=list)
    answer: str | None = None
    tools: tuple[ToolDef, ...] = ()  # for the model path: what it is offered
    candidates: list[tuple[str, float]] = field(default_factory=list)
    question: bool = False
    language: str = "zh"
    reason: str = ""
    duration_ms: float = 0.0
    prefix: str = ""  # said before the actions' results (an undo, a retarget)
    suffix: str = ""  # said after them
    learned: Example | None = None  # the household's example that routed it
    excluded: tuple[str, ...] = ()  # actions the household undid for these words
    restores: tuple[tuple[str, str, int | None], ...] = ()  # deletes to put back: (action, token, id)

    def trace(self) -> dict[str, Any]:
        return {
            "path": self.path, "label": self.label, "confidence": round(self.confidence, 4),
            "calls": [{"name": c.name, "arguments": c.arguments} for c in self.calls],
            "candidates": [[n, round(p, 4)] for n, p in self.candidates[:5]], "question": self.question,
            "reason": self.reason, "duration_ms": self.duration_ms,
            **({"learned": {"text": self.learned.text, "action": self.learned.action, "example": self.learned.group}}
               if self.learned is not None else {}),
        }


# A person said as a pronoun, with what the slot took after it ("他刚", "he just paid").
_PERSON_PRONOUN_RE = re.compile(r"^(?:他|她|它)(?:们)?(?:刚刚?|已经|又|也|还|都)?(?:还了|还|给了)?$|^(?:he|she|they|him|her|them|it)\b", re.I)


@dataclass
class _Context:
    last_action: str = ""
    last_id: int | None = None
    last_text: str = ""
    last_label: str = ""
    last_data: dict[str, Any] = field(default_factory=dict)
    pending: tuple[str, dict[str, Any], str] | None = None  # action, args so far, missing key
    # What the last turn's intent-layer actions did: (action, arguments, result data), for
    # an undo or a retarget right after it; emptied by a turn the model answered.
    done: list[tuple[str, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    listed: Listing | None = None  # what the last turn listed, for the next one
    asked: tuple[str, dict[str, Any]] | None = None  # the last turn's one read or search, as asked
    shown: Listing | None = None  # the listing this turn may point at


# A template's slots that say when, not what: its other words may be the record's nouns.
_WHEN_SLOTS = frozenset({"from", "to", "date", "time", "day", "when", "within_days", "limit"})


# What answers a reminder just delivered: only then do these words snooze or acknowledge one.
REMINDER_REPLIES = ("snooze_reminder", "acknowledge_reminder")


def said_text(text: str) -> str:
    """The words of `text` as meant: written numbers, typos and fillers put right, "12,480" one
    number. What `IntentLayer.fill` reads its values from (and `bench/make_spans.py` too)."""
    # "ok so remnd me…", "交房祖", "…坏了 下周三…": the words and the pauses as meant
    text = strip_fillers(fix_typos(homophones().fix(as_written(text))))
    return _THOUSANDS_RE.sub(lambda m: m.group(0).replace(",", ""), text)  # "12,480 steps" is one number


class IntentLayer:
    def __init__(
        self,
        registry: ToolRegistry,
        *,
        clock: Clock,
        personality: str = "",
        db: Database | None = None,
        settings: IntentSettings | None = None,
        cache: Path | None = None,
    ) -> None:
        self.registry = registry
        self.cache = cache  # where the trained model is saved, so a restart loads it
        self.clock = clock
        self.personality = personality
        self.db = db
        self.settings = settings or IntentSettings()
        self.model = IntentModel()
        self.templates: Mapping[str, list[Template]] = {}
        self._actions: dict[str, ToolDef] = {}
        self._contexts: dict[tuple[str, str], _Context] = {}
        # Whether a member has a delivered reminder to answer (the App sets it from its
        # scheduler): without one, "等会儿再说" or "got it" is a remark, not a snooze.
        self.reminder_waiting: Callable[[str], Awaitable[bool]] | None = None
        self._learned = 0
        self.trained_at = 0.0
        self.model_source = ""  # "trained", "file" (saved by an earlier start) or "memory"
        self.last_route: Route | None = None
        self.memory: dict[str, Example] = {}
        # The learned second look at where a value's words begin and end (None: the rules' alone).
        self.spans: Spans | None = load_spans()

    # -- training -------------------------------------------------------------------------

    def _action_defs(self) -> list[ToolDef]:
        """The registry's tools the layer classifies over: those registered with examples."""
        return [spec.to_def() for spec in self.registry if spec.examples and spec.category]

    async def learned_examples(self) -> list[Example]:
        if self.db is None:
            return []
        rows = await self.db.fetchall("SELECT id, text, action, arguments FROM intent_examples ORDER BY id")
        return [Example(r["text"], r["action"], json.loads(r["arguments"] or "{}"), f"learned:{r['id']}") for r in rows]

    def train_sync(self, extra: Sequence[Example] = (), *, limit_per_action: int | None = None,
                   fresh: bool = False, warm: bool = True) -> None:
        defs = self._action_defs()
        self._actions = {d.name: d for d in defs}
        self.templates = LazyTemplates(defs)
        extra = [e for e in extra if e.action in self._actions or e.action == NONE_LABEL]
        # A trained model is read-only: one built from the same registry and examples is
        # shared (several Apps in one process, the CLI, tests) instead of trained again.
        key = json.dumps([[d.name, list(d.examples)] for d in defs] + [[e.text, e.action] for e in extra]
                         + [phrasings_digest(), limit_per_action, self.settings.cost], ensure_ascii=False)
        key = _fingerprint(key)
        cached = None if fresh else _MODELS.get(key)
        source = "memory"
        if cached is None and not fresh and self.cache is not None:
            cached, source = IntentModel.load(self.cache, key), "file"
        if cached is None:
            examples = generate(self.templates, extra=extra, said=phrasings(), limit_per_action=limit_per_action)
            cached, source = IntentModel(), "trained"
            cached.train(examples, cost=self.settings.cost)
            if self.cache is not None:
                try:
                    cached.save(self.cache, key)
                except OSError as err:  # the next start trains again; nothing else is lost
                    log.warning("intent.save_failed", path=str(self.cache), error=str(err))
        if len(_MODELS) >= 4 and key not in _MODELS:
            _MODELS.pop(next(iter(_MODELS)))
        _MODELS[key] = cached
        self.model, self.model_source = cached, source
        if warm:
            self.warm_up()
        self._learned = len(extra)
        # What the household taught is also remembered word for word: the same utterance
        # goes where it was taught, whatever the classifier's margin (`explain` shows it).
        self.memory = {_key(e.text): e for e in extra}
        self.trained_at = time.time()
        log.info("intent.trained", source=source, examples=self.model.size, actions=len(defs),
                 threshold=round(self.model.threshold, 3),
                 heldout_accuracy=round(self.model.heldout_accuracy, 3), learned=len(extra))

    def warm_up(self, busy: Callable[[], bool] = lambda: False) -> None:
        """Pay now what a first utterance would: the date library's language data and the
        feature path (a third of a second of Python in a new process). `App.warm` runs it
        beside the engine's prime, before the daemon says it is ready: Python work in a
        thread holds the interpreter against the event loop, so none of it may overlap a
        turn. In small steps; while `busy()` (a turn is being served) it waits. A
        template's pattern is compiled when its action is first matched (some 100 per
        action, ~10 ms): compiling every action's at start took 2-3 s of the interpreter."""

        def step() -> None:
            while busy():
                time.sleep(0.02)

        for text in ("3 weeks from now on March 3rd", "下周三下午3点", "上个月的"):  # the last one: dateparser
            step()
            try:
                parse_when(text, self.clock.now())
            except DateError:
                pass
        self.model.predict("warm up")

    async def train(self, *, warm: bool = True) -> None:
        """Train in a worker thread; a failure leaves the previous model (or none: every
        message then goes to the model) and is logged, never raised."""
        try:
            extra = await self.learned_examples()
            # A stop while it trains does not wait for it: the thread's result is dropped.
            await anyio.to_thread.run_sync(lambda: self.train_sync(extra, warm=warm), abandon_on_cancel=True)
        except Exception as err:  # noqa: BLE001 - the model answers while the layer cannot
            log.warning("intent.train_failed", error=repr(err))

    async def retrain_if_changed(self) -> bool:
        """At the heartbeat: retrain off the loop when the household taught new examples."""
        if self.db is None:
            return False
        rows = await self.db.fetchall("SELECT COUNT(*) AS n FROM intent_examples")
        if not rows or rows[0]["n"] == self._learned:
            return False
        await self.train()
        return True

    @property
    def threshold(self) -> float:
        """The confidence a change of the household's records needs (the held-out plateau's
        cautious end, unless `IntentSettings.threshold` sets one)."""
        return self.settings.threshold if self.settings.threshold is not None else self.model.threshold

    @property
    def read_threshold(self) -> float:
        """The confidence enough to read or to answer in words (the plateau's middle)."""
        if self.settings.threshold is not None:
            return self.settings.threshold
        return min(self.model.read_threshold, self.model.threshold)

    def _bar(self, label: str) -> float:
        return self.read_threshold if label == NONE_LABEL or self._is_read(label) else self.threshold

    # -- routing ----------------------------------------------------------------------------

    def predict(self, text: str) -> Prediction:
        return self.model.predict(text)

    async def route(self, text: str, member: str = "", channel: str = "", tools: Sequence[ToolDef] = ()) -> Route:
        started = time.perf_counter()
        # "聽日返工之前": read as the training text writes it (明天上班之前); values stay as typed
        typed, text = text, read_as_mainland(text)
        read = text
        # "交房祖": a household word typed by its sound, as meant; "…坏了 下周三…": a pause spoken
        text = as_written(homophones().fix(text))
        text = fix_typos(text, KINDS_VOCABULARY)  # "delte the gym taks": delete, as meant
        ctx = self._contexts.setdefault((member, channel), _Context())
        ctx.shown, ctx.listed = ctx.listed, None  # a listing is pointed at by the next turn only
        undone = [(ctx.last_text, name) for name, _, _ in ctx.done[:1]]
        named = await self._shift_named(text, member, channel, ctx)
        if named == "several":  # the words name more than one record: the model asks which
            lang = "zh" if has_han(text) else "en"
            route = self._to_model(text, lang, self.predict(strip_polite(text)), tools, reason="several named")
        else:
            route = named if named is not None else self._route(text, ctx, tools)
        if (route.calls and self.reminder_waiting is not None and all(c.name in REMINDER_REPLIES for c in route.calls)
                and not await self.reminder_waiting(member)):
            # "我出去一下 等会儿再说" with no reminder delivered: words to answer, nothing to snooze
            lang = "zh" if has_han(text) else "en"
            ranked = Prediction([(n, p) for n, p in self.predict(strip_polite(text)).ranked if n not in REMINDER_REPLIES])
            route = self._to_model(text, lang, ranked, [t for t in tools if t.name not in REMINDER_REPLIES],
                                   reason="no reminder to answer")
        if typed != read:  # the names and words stored as typed: 去銀行補卡, 同阿强睇楼
            route.calls = [replace(c, arguments=self._as_typed(c, typed, read)) for c in route.calls]
        if route.restores:
            await self._put_back(route)
        route.duration_ms = round((time.perf_counter() - started) * 1000, 2)
        self.last_route = route
        if route.label == "undo" and route.reason == "undo" and self.db is not None and undone and undone[0][0]:
            # An undo is a lesson: these words should not have done that.
            await self.learn(undone[0][0], NONE_LABEL, {"undid": undone[0][1]}, member)
        if route.reason == "correction" and self.db is not None:
            ctx = self._contexts[(member, channel)]
            if ctx.last_text and route.calls:
                await self.learn(ctx.last_text, route.label, {}, member)
        return route

    def _as_typed(self, call: ToolCall, typed: str, read: str) -> str:
        """A call's text values as the household typed them; its dates, repeats, amounts and
        choices as the layer read them, for the action to read."""
        spec = self.registry.get(call.name)
        props = dict(spec.parameters).get("properties", {}) if spec is not None else {}
        args = json.loads(call.arguments or "{}")
        for key, value in args.items():
            prop = props.get(key, {})
            kind = prop.get("items", {}).get("type") if prop.get("type") == "array" else prop.get("type")
            if kind == "string" and "enum" not in prop and not is_when(prop) and key != "repeat":
                args[key] = as_typed(value, typed, read)
        return json.dumps(args, ensure_ascii=False)

    def _route(self, text: str, ctx: _Context, tools: Sequence[ToolDef]) -> Route:
        lang = "zh" if has_han(text) else "en"
        if not self.model.ready or not text.strip():
            return self._to_model(text, lang, None, tools, reason="not trained")
        stripped = strip_polite(text)
        if _WHO_RE.search(text) and len(stripped) < 40:
            return Route("intent", "who_am_i", 1.0, answer=self.who_am_i(lang), language=lang, reason="who")
        if _HELP_RE.search(text.strip()) and len(stripped) < 40:
            return Route("intent", "help", 1.0, answer=self.help_text(lang), language=lang, reason="help")
        # (what the household quotes is a name, not part of the asking: "put 'book the check-up' on…")
        said, bare_said = unquoted(text.strip()), unquoted(stripped)
        # ("在那个，那个什么，红星饭店": a word searched for, no question; "…, high priority can?": a request)
        said, bare_said = _WHAT_FILLER_RE.sub("，", said), _WHAT_FILLER_RE.sub("，", bare_said)
        question = (bool(_ASKS_RE.search(said) or _ASKS_RE.search(_PARTICLE_RE.sub("", said))) or (
            bool(_QUESTION_RE.search(said) or _QUESTION_RE.search(bare_said))
            and (not _REQUEST_RE.search(said) or bool(_FIND_OUT_RE.search(bare_said))))) and not (
            _TRAILING_ORDER_RE.search(said) and not re.search(r"[?？]\s*$", said)) and not _TAG_REQUEST_RE.search(said)
        if _UNDO_RE.match(stripped) or _UNDO_RE.match(text.strip()):
            return self._undo(ctx, lang)
        retarget = self._retarget(stripped, ctx, lang)
        if retarget is not None:
            return retarget
        fixed = None if question else self._when_fix(text.strip(), ctx, lang)
        if fixed is not None:
            return fixed
        # A correction: "不是这个，我是说记到购物清单里" — route what follows, learn from it.
        correction = _CORRECTION_RE.match(stripped)
        if correction and ctx.last_id is not None and _CHANGE_LEAD_RE.match(stripped[correction.end():]):
            # "不对，改成四次" right after a record: a change of that record, not another action
            stripped, correction = stripped[correction.end():], None
        if correction and correction.end() < len(stripped) and ctx.last_text:
            route = self._route(stripped[correction.end():], ctx, tools)
            if route.calls:
                route.reason = "correction"
                # What the corrected turn made by mistake goes, where it can.
                route.calls += [r for n, a, d in ctx.done if n != route.label and n.startswith(
                    CREATES) and (r := self._reverse(n, a, d)) is not None]
            return route
        prediction = self.predict(text)
        # A pending missing-slot question: this message is its answer, unless it clearly
        # asks for something else.
        if ctx.pending is not None:
            action, args, missing = ctx.pending
            ctx.pending = None
            # (an answer reads like a command of its own often enough: only a sure one wins)
            if not (prediction.label not in (NONE_LABEL, action) and prediction.confidence >= max(self.threshold, 0.9)
                    and len(stripped) > 8):
                filled = {k: v for k, v in self.fill(action, stripped).items() if v not in (None, "", [])}
                args = {**args, **filled}
                if args.get(missing) in (None, "", []):
                    args[missing] = self._answer_value(action, missing, stripped)
                return self._calls(action, args, prediction, lang, reason="slot answered")
        if prediction.label in (WHO_LABEL, HELP_LABEL) and prediction.confidence >= min(self.threshold, 0.5) \
                and len(stripped) < 60 and (prediction.label == HELP_LABEL or _ADDRESSED_RE.search(text)):
            # (who it is is asked of it: "what's a good name for a goldfish" asks for a name, not its own)
            # Said in other words than the rules know ("你会干嘛", "what are you good for"):
            # the classifier knows these two as classes of their own. Answering costs no write.
            who = prediction.label == WHO_LABEL
            return Route("intent", prediction.label, prediction.confidence,
                         answer=self.who_am_i(lang) if who else self.help_text(lang), candidates=prediction.ranked[:5],
                         language=lang, reason="who (classified)" if who else "help (classified)")
        # Below that, the two are no candidates: what follows ranks actions and "none".
        prediction = Prediction([(n, p) for n, p in prediction.ranked if n not in (WHO_LABEL, HELP_LABEL)])
        taught = self.memory.get(_key(text)) or self.memory.get(_key(stripped))
        if taught is not None and taught.action == NONE_LABEL:
            # The household undid what these words did: the model decides, without that action.
            route = self._to_model(text, lang, prediction, tools, question, reason="learned: undone before")
            undid = str(taught.args.get("undid", ""))
            route.tools = tuple(t for t in route.tools if t.name != undid)
            route.learned, route.excluded = taught, (undid,)
            return route
        if taught is not None and taught.action in self._actions:
            prediction = prediction.led_by(taught.action, 1.0)
        again = self._read_again(stripped, prediction, ctx, lang)
        if again is not None:
            return again
        shown = self._from_listing(text, stripped, prediction, ctx, lang) if ctx.shown is not None else None
        if shown is not None:
            return shown
        follow = self._follow_up(stripped, prediction, ctx, lang)
        if follow is not None:
            return follow
        shift = find_shift(stripped)
        if shift is not None and bare(shift):
            # "往后推一个小时" with no record touched before: which one is meant is unknown.
            return self._to_model(text, lang, prediction, tools, question, reason="no referent")
        route = self._decide(text, stripped, prediction, ctx, tools, lang, question)
        if taught is not None and route.label == taught.action:
            route.learned, route.reason = taught, "learned"
        return route

    def _decide(self, text: str, stripped: str, prediction: Prediction, ctx: _Context, tools: Sequence[ToolDef],
                lang: str, question: bool) -> Route:
        label, confidence = prediction.label, prediction.confidence
        dest = None if question else destination(stripped)
        if (dest is not None and dest in self._actions
                and (label in (dest, NONE_LABEL, self._reading_of(dest)) or confidence < self.threshold
                     or (dest.startswith("create_") and _entity(label) == _entity(dest)))):
            # "买5号电池，加清单里", "pop it in the diary": the destination named with a verb
            # that puts something there decides what the classifier was unsure of, or took
            # for that domain's listing.
            label, confidence = dest, max(confidence, self.threshold)
            prediction = prediction.led_by(label, confidence)
        head = None if question else _KIND_HEAD_RE.match(stripped)
        if head is not None:
            # "点子：乐乐的生日派对搞个恐龙主题", "Memo: bin day's moved to Wednesday": a line headed
            # by a kind's name and a colon is a record of that kind (blinds 1-10 say so 24 times of 24).
            kind = next(name for name, said in head.groupdict().items() if said)
            if kind in self._actions and label != kind:
                label, confidence = kind, max(confidence, self.threshold)
                prediction = prediction.led_by(label, confidence)
        if (not question and label != "create_task" and "create_task" in self._actions and _REMIND_RE.search(stripped)
                and not re.search(r"提前.{0,8}提醒|before", stripped, re.I) and not _NOT_A_REMINDER_RE.search(stripped)
                and (label == NONE_LABEL or label.startswith(("record_", "add_")) or confidence < self.threshold)):
            label, confidence = "create_task", max(confidence, self.threshold)
            prediction = prediction.led_by(label, confidence)
        if not question and label == "create_note" and "create_task" in self._actions and _DUE_EN_RE.search(stripped):
            # "quarterly report due Friday, note that down": a deadline makes it a task.
            label, confidence = "create_task", max(confidence, self.threshold)
            prediction = prediction.led_by(label, confidence)
        if not question and label == "add_birthday" and "add_person" in self._actions and _CONTACT_RE.search(stripped):
            # "新认识的同事赵磊，电话…，生日7月9号": a phone or an email is a contact, birthday and all.
            label, confidence = "add_person", max(confidence, self.threshold)
            prediction = prediction.led_by(label, confidence)
        if (not question and (label != "record_trajectory" or confidence < self.threshold) and "record_trajectory" in self._actions
                and _COORDINATES_RE.search(stripped) is not None and _SURE_COORDINATES_RE.search(stripped)):
            # "我现在在北京南站，坐标39.865, 116.379": a latitude and a longitude are a place been.
            label, confidence = "record_trajectory", max(confidence, self.threshold)
            prediction = prediction.led_by(label, confidence)
        if (not question and "delete_task" in self._actions and _REMOVED_CLAUSE_RE.search(stripped)
                and _NO_MORE_REMINDER_RE.search(stripped)):
            # "不用再提醒我买机票了，那条删了吧": the reminder (a task) is not wanted; it goes.
            label, confidence = "delete_task", max(confidence, self.threshold)
            prediction = prediction.led_by(label, confidence)
        if (not question and label != NONE_LABEL and not label.startswith("delete_") and not self._is_read(label)
                and _DELETED_AT_END_RE.search(stripped) is not None):
            # "甭管那跑步打卡了，直接给俺删喽": a removal said last is what is asked, whatever the
            # classifier made of the record's words; the kind's own delete.
            remover = next((n for n in self._actions if n.startswith("delete_") and _entity(n) == _entity(label)), None)
            if remover is not None:
                label, confidence = remover, max(confidence, self.threshold)
                prediction = prediction.led_by(label, confidence)
        if label != NONE_LABEL and confidence < self.threshold:
            # The command ahead of its content, classified alone, agreeing with the whole:
            # the long content ("写日记：今天…") no longer drowns what was asked for.
            # So does the frame around a quoted name ("add 'check the smoke alarms' to my
            # to-dos"): the name's own words no longer pull the asking elsewhere.
            head = _HEAD_RE.match(stripped)
            frame = unquoted(stripped)
            for part in ([head.group("head")] if head is not None else []) + ([frame] if frame != stripped else []):
                alone = self.predict(part)
                if alone.label == label and alone.confidence >= self.threshold:
                    confidence = alone.confidence
                    prediction = prediction.led_by(label, confidence)
                    break
        if (not question and label != NONE_LABEL and not self._is_read(label) and _SHOW_RE.search(stripped)
                and not _CHANGE_RE.search(stripped)
                and not (label == dest and (_DUTY_RE.search(stripped) or _NAMED_KIND_ZH_RE.search(stripped)))):
            # "打开购物清单", "习惯列表", "go through the inventory": a showing frame over a
            # write's domain shows that domain, with the write's confidence.
            domain = self._reading_of(label)
            if domain is not None:
                label, confidence = domain, confidence + dict(prediction.ranked).get(domain, 0.0)
                prediction = prediction.led_by(label, confidence)
        elif (not question and self._is_read(label) and label.startswith("list_") and _RECORD_RE.search(stripped)
                and not _SHOW_RE.search(stripped)):
            # The mirror: asked to keep something of a domain the classifier would list.
            writer = self._writer_of(label)
            if writer is not None:
                label, confidence = writer, confidence + dict(prediction.ranked).get(writer, 0.0)
                prediction = prediction.led_by(label, confidence)
        named = {e for e, rx in _ENTITY_NOUNS if rx.search(stripped)}
        if len(named) == 1 and label != NONE_LABEL and _entity(label) in {e for e, _ in _ENTITY_NOUNS}:
            # "报销单那个任务推迟到下周一" names the kind of record: the same verb on that kind.
            verb = label.split("_", 1)[0]
            other = next((n for n in self._actions if n.split("_", 1)[0] == verb and _entity(n) in named), None)
            other = None if other == label and confidence >= self.threshold else other
            if other is not None:
                # The classifier was sure of the verb, unsure of the kind: the verb's whole mass.
                label = other
                confidence = sum(p for n, p in prediction.ranked if n.split("_", 1)[0] == verb)
                prediction = prediction.led_by(label, confidence)
        if label == NONE_LABEL:
            if confidence >= self.read_threshold or question:  # small talk, or a question about the world
                return self._to_model(text, lang, prediction, tools, question, reason="small talk", offer_actions=False)
            if not question and _says_nothing_to_do(stripped):
                return self._to_model(text, lang, prediction, tools, question, reason="remark, unsure", offer_actions=False)
            return self._to_model(text, lang, prediction, tools, question, reason="unsure")
        spec = self.registry.get(label)
        if spec is None:
            return self._to_model(text, lang, prediction, tools, question, reason="unknown action")
        if question and spec.permission is Permission.NETWORK and ((
                _SEARCH_ASKED_RE.search(text.strip()) and not _ASKED_IF_DONE_RE.search(text)) or (
                _SEARCH_RE.search(stripped) and not _ASKS_RE.search(text.strip()) and not _ASKS_RE.search(stripped))):
            question = False  # "上网搜一下这周末有什么展览": the search is asked for; it writes nothing
        if question and spec.permission is not Permission.READ:
            # "did I check in stretching today?": the question is about the domain the write
            # acts on; that domain's reading action answers it, with the write's confidence.
            domain = self._reading_of(label)
            read = (domain, confidence + dict(prediction.ranked).get(domain, 0.0)) if domain else next(
                ((n, p) for n, p in prediction.ranked[:6] if self._is_read(n)), None)
            if read is not None and read[1] >= 0.05:
                label, confidence = read
                spec = self.registry.get(label)
            else:
                return self._to_model(text, lang, prediction, tools, question, reason="question, write predicted")
        assert spec is not None
        if spec.permission in (Permission.WRITE, Permission.DELETE) and _is_remark(stripped, confidence):
            # A remark with no request in it ("我爸又在阳台偷偷抽烟了"): the model answers it in
            # words, however sure the classifier is of a write.
            return self._to_model(text, lang, prediction, tools, question, reason="remark", offer_actions=False)
        if label.startswith("delete_") and not _REMOVE_RE.search(fix_typos(stripped)):
            return self._to_model(text, lang, prediction, tools, question, reason="delete, no removal word")
        if confidence < self._bar(label):
            if not question and confidence < 0.3 and _says_nothing_to_do(stripped):
                # Unsure, and nothing in it asks for anything or holds a value to keep ("咪咪今天一上午
                #都在睡觉", "Brilliant, ta"): the model answers in words; offered actions, a small
                # model writes what nobody asked for.
                return self._to_model(text, lang, prediction, tools, question, reason="remark, unsure", offer_actions=False)
            return self._to_model(text, lang, prediction, tools, question, reason="below threshold")
        args = self.fill(label, text)
        if any(isinstance(v, str) and _BARE_PRONOUN_RE.fullmatch(v.strip()) for v in args.values()):
            # "把它改到4点" with nothing touched before: which record is meant is unknown.
            return self._to_model(text, lang, prediction, tools, question, reason="no referent")
        place = args.get("place")
        if label == "record_trajectory" and isinstance(place, str) and _DOING_NOT_PLACE_ZH.fullmatch(place.strip()):
            # "喝酒去了哈 回来再唠": off to do something, not a place arrived at
            return self._to_model(text, lang, prediction, tools, question, reason="no place said")
        return self._calls(label, args, prediction, lang, question=question, ctx=ctx)

    # -- undo and retarget ----------------------------------------------------------------

    def _undo(self, ctx: _Context, lang: str) -> Route:
        """Reverse what the last turn's intent-layer actions did, where an action can be
        reversed (a record made is deleted, a completion reopened, an update put back)."""
        zh = lang == "zh"
        if not ctx.done:
            return Route("intent", "undo", 1.0, answer="没有可以撤销的操作。" if zh else "There is nothing to undo.",
                         language=lang, reason="nothing to undo")
        calls, kept, restores = [], [], []
        for name, args, data in ctx.done:
            if name.startswith("delete_") and isinstance(data.get("undo"), str):
                restores.append((name, data["undo"], data.get("id") if isinstance(data.get("id"), int) else None))
                continue
            reverse = self._reverse(name, args, data)
            if reverse is None:
                kept.append(f"{name} #{data['id']}" if isinstance(data.get("id"), int) else name)
            else:
                calls.append(reverse)
        note = ""
        if kept:
            note = (f"{'、'.join(kept)} 无法自动撤销，记录还在。" if zh
                    else f"{', '.join(kept)} cannot be undone automatically; the record stays.")
        learned = ("我记下了：下次这样说，我会先问清楚。" if zh else "Noted: next time you say that, I will check first.") \
            if self.db is not None else ""
        if not calls:
            ctx.done = []  # (no actions run to finish the turn: nothing is left to undo after this)
            return Route("intent", "undo", 1.0, answer=" ".join(p for p in (note, learned) if p), language=lang,
                         reason="undo", restores=tuple(restores))
        prefix = ("已撤销上一步：" if zh else "Undone: ") + (note + " " if note else "")
        return Route("intent", "undo", 1.0, calls=calls, language=lang, reason="undo", prefix=prefix,
                     suffix=learned, restores=tuple(restores))

    async def _put_back(self, route: Route) -> None:
        """Put back the records `route`'s deletes took (an undo or a retarget right after a
        delete), and say so before whatever else the route answers."""
        zh = route.language == "zh"
        said = []
        for name, token, record in route.restores:
            what = _entity(name).replace("_", " ")
            try:
                if self.db is None:
                    raise ToolError("no database")
                record = await restore(self.db, token)
                said.append(f"已恢复刚删除的{_ENTITY_ZH.get(what, '记录')} #{record}。" if zh
                            else f"Put back the deleted {what} #{record}.")
            except ToolError as err:
                log.warning("intent.restore_failed", action=name, record=record, error=str(err))
                said.append(f"#{record} 没能恢复：{err}" if zh else f"#{record} could not be put back: {err}")
        text = ("" if zh else " ").join(said)
        if route.answer is not None and not route.calls:
            head = "已撤销上一步：" if zh and route.reason == "undo" else "Undone: " if route.reason == "undo" else ""
            route.answer = "".join(p for p in (head, text, ("\n" + route.answer) if route.answer else "") if p)
        else:
            route.prefix = route.prefix + text + ("" if zh else " ")

    def _reverse(self, name: str, args: Mapping[str, Any], data: Mapping[str, Any]) -> ToolCall | None:
        if name == "switch_mode" and data.get("previous"):
            return ToolCall(_call_id(), name, json.dumps({"mode": data["previous"]}, ensure_ascii=False))
        record = data.get("id")
        if not isinstance(record, int):
            return None
        entity = _entity(name)
        reverse: dict[str, Any] = {"id": record}
        if name.startswith(CREATES):
            target = next((n for n in self._actions if n.startswith("delete_") and _entity(n) == entity), None)
        elif name.startswith("complete_"):
            target = next((n for n in self._actions if n.startswith("update_") and _entity(n) == entity), None)
            before = data.get("before") or {}
            reverse["status"] = "open"
            if before.get("due"):
                reverse["due"] = before["due"]  # a repeating task goes back to this occurrence
        elif name.startswith("update_") and isinstance(data.get("before"), Mapping):
            target = name
            spec = self.registry.get(name)
            props = dict(spec.parameters).get("properties", {}) if spec else {}
            for column, value in data["before"].items():
                key = {"content": "new_content", "title": "new_title"}.get(column, column)
                if key == "repeat":
                    reverse[key] = value or "none"
                elif key in props and key != "id" and value is not None:
                    reverse[key] = json.loads(value) if key == "tags" and isinstance(value, str) else value
            if len(reverse) == 1:
                return None
        else:
            return None
        if target is None:
            return None
        return ToolCall(_call_id(), target, json.dumps(reverse, ensure_ascii=False))

    def _retarget(self, text: str, ctx: _Context, lang: str) -> Route | None:
        """"不是这个，是周报那个" right after an action on one record: the same action on the
        record those words name, and the wrong one put back where that can be done."""
        m = _RETARGET_RE.match(text)
        touched = [(n, a, d) for n, a, d in ctx.done if not n.startswith(CREATES)]
        if m is None or len(touched) != 1:
            return None
        words = (m.group("zh") or m.group("en") or m.group("en2") or "").strip()
        name, args, data = touched[0]
        spec = self.registry.get(name)
        props = dict(spec.parameters).get("properties", {}) if spec else {}
        key = next((k for k in ("content", "title", "habit", "item", "name", "person", "plant", "pet") if k in props), None)
        if not words or key is None:
            return None
        redo = {k: v for k, v in args.items() if k not in ("id", key)}
        redo[key] = words
        calls = []
        reverse = self._reverse(name, args, data)
        zh = lang == "zh"
        restores: tuple[tuple[str, str, int | None], ...] = ()
        if name.startswith("delete_") and isinstance(data.get("undo"), str):
            restores = ((name, data["undo"], data.get("id") if isinstance(data.get("id"), int) else None),)
            prefix = f"好的，是「{words}」那条。" if zh else f"OK, the {words} one. "
        elif reverse is not None:
            calls.append(reverse)
            prefix = f"好的，是「{words}」那条。" if zh else f"OK, the {words} one. "
        else:
            prefix = (f"好的，是「{words}」那条（刚才对 #{data.get('id')} 的操作无法撤回）。" if zh
                      else f"OK, the {words} one (what was done to #{data.get('id')} cannot be undone). ")
        # The record meant first: its result is the answer's head and the record touched now.
        calls.insert(0, ToolCall(_call_id(), name, json.dumps(redo, ensure_ascii=False)))
        return Route("intent", name, 1.0, calls=calls, language=lang, reason="retarget", prefix=prefix,
                     restores=restores)

    def _when_fix(self, text: str, ctx: _Context, lang: str) -> Route | None:
        """"不是明天，是后天" right after a record made or moved: that record's time, put right
        (its time of day kept when only the day is said)."""
        m = _WHEN_FIX_RE.match(text)
        if m is None or ctx.last_id is None:
            return None
        wrong = next((g for g in (m.group("zh_a"), m.group("en_a"), m.group("en_a2")) if g), "").strip()
        right = next((g for g in (m.group("zh_b"), m.group("en_b"), m.group("en_b2"), m.group("zh_c")) if g), "").strip()
        said = find_when(right)
        if (not m.group("zh_c") and (not wrong or find_when(wrong) is None)) or said is None or said[0] != right:
            return None
        entity = _entity(ctx.last_action)
        target = next((n for n in self._actions if n.startswith("update_") and _entity(n) == entity), None)
        spec = self.registry.get(target) if target else None
        if target is None or spec is None:
            return None
        props = dict(spec.parameters).get("properties", {})
        key = next((k for k in ("due", "start", "date", "time") if k in props and is_when(props[k])
                    and (ctx.last_data.get(k) or k in ("due", "start"))), None)
        if key is None:
            return None
        args = {"id": ctx.last_id, key: self._same_day(right, ctx)}
        return Route("intent", target, 1.0, calls=[ToolCall(_call_id(), target, json.dumps(args, ensure_ascii=False))],
                     language=lang, reason="follow-up: time put right")

    def _reading_of(self, name: str) -> str | None:
        """The reading action of the domain `name` writes to (check_in_habit → list_habits)."""
        entity = _entity(name)
        return next((n for n in (f"list_{entity}s", f"list_{entity}", f"get_current_{entity}")
                     if n in self._actions and self._is_read(n)), None)

    def _writer_of(self, name: str) -> str | None:
        """The one action recording a new record of the domain `name` reads (list_moods →
        record_mood); None when there is none or several."""
        entity = _entity(name)
        found = [n for n in self._actions if n.startswith(("record_", "add_", "create_", "write_")) and _entity(n) == entity]
        return found[0] if len(found) == 1 else None

    def _is_read(self, name: str) -> bool:
        spec = self.registry.get(name)
        return spec is not None and spec.permission is Permission.READ

    def fill(self, action: str, text: str) -> dict[str, Any]:
        spec = self.registry.get(action)
        if spec is None:
            return {}
        props = dict(spec.parameters).get("properties", {})
        required = list(dict(spec.parameters).get("required", []))
        now = self.clock.now()
        templates = self.templates.get(action, [])
        text = said = said_text(text)
        # A title's own comma ("《你好，李焕英》") parts no clauses: held aside while reading.
        text = _TITLE_MARKS_RE.sub(lambda m: m.group(0).replace("，", _HELD_COMMA).replace(",", _HELD_COMMA_EN), text)
        # "Mrs. Patel" is one name, not a sentence's end: read without the period, kept as said.
        titles = {m.group(1) for m in _HONORIFIC_RE.finditer(text)}
        text = _HONORIFIC_RE.sub(r"\1 ", text)
        # "…，存一下", ", put him in contacts": a clause that only commands is no value (a template
        # that says it too still matches the whole utterance when the rest matches none).
        whole, text = text, strip_command_clauses(text)
        # The record's number is taken first: else "5号任务" is a date and "第6项" a price.
        numbered = _NUMBERED_RE.search(text) if "id" in props and not action.startswith(CREATES) else None
        if numbered is not None:
            text = re.sub(r"\s{2,}", " ", text[:numbered.start()] + " " + text[numbered.end():]).strip()
        text, tags = take_tags(text, props)  # "，标签家里", ", tag it admin": the tags, out of the name
        if tags:  # (and out of the whole a template may still match: "记个点子，…，标签亲子")
            whole = take_tags(whole, props)[0]
        # A latitude and a longitude are a place's coordinates, not its name or a reading.
        spot = _COORDINATES_RE.search(text) if "latitude" in props and "longitude" in props else None
        if spot is not None:  # (the words that introduced them go too: "，坐标", "coordinates:")
            before = re.sub(r"[，,]?\s*(?:坐标|coordinates?)\s*(?:是|are|:|：)?\s*$", "", text[:spot.start()].rstrip(" ，,"))
            text = "，".join(p for p in (before, text[spot.end():].strip(" ，,")) if p).strip(" ，,")
        # A link is its own slot, whole: no name, price or item list is read out of it.
        link = _URL_RE.search(text) if "url" in props else None
        if link is not None:
            text = re.sub(r"\s{2,}", " ", text[:link.start()] + " " + text[link.end():]).strip(" ，,")
            text = re.sub(r"(?:[，,]?\s*(?:链接|网址|link|url)\s*(?:is|是|:|：)?\s*)$", "", text, flags=re.I).strip(" ，,")
        note_key = next((k for k in ("note", "notes") if k in props), None)
        noted = _NOTE_RE.search(text) if note_key else None
        if noted is not None and noted.start() > 0:  # taken out, so that no name swallows it
            text = strip_command_clauses((text[:noted.start()] + text[noted.end():]).strip(" ，,"))
        else:
            noted = None
        # A recurrence ("每个工作日早上七点", "every Monday at 8") is its own slot: taken out
        # before the rest is read, so it is neither the title nor a one-off due time.
        repeat = find_repeat(text) if "repeat" in props else None
        if repeat is not None:
            rule, (a, b) = repeat
            said = text[a:b].strip(" ，,")
            text = re.sub(r"\s{2,}", " ", text[:a] + " " + text[b:]).strip()
        if whole != text and repeat is None:
            matched = match_template(text, templates, props, now) or match_template(whole, templates, props, now)
        else:
            matched = match_template(text, templates, props, now)
        if matched is None and repeat is None:
            matched = match_clauses(text, templates, props, now)
        if matched is not None:
            args = {k: v for k, v in matched.items() if k in props}
            # A setting the template has no slot for ("刚看完《X》，打8分": watched) is still said.
            # A kind the words name outright ("这部动画", "the documentary") outweighs the one a
            # template guessed from its verb ("在追…": a show).
            said_enum = generic(text, action, {k: v for k, v in props.items() if k in _ENUM_AFTER_MATCH and "enum" in v
                                               and (k not in args or k == "kind")}, [], templates, now, read=True)
            args.update({k: v for k, v in said_enum.items() if k in _ENUM_AFTER_MATCH})
        else:
            headless = _COMMAND_HEAD_ZH.sub("", text) if action.startswith(CREATES) else text
            if headless == text and action.startswith(CREATES) and re.search(_RECORD_KINDS_ZH, text):
                headless = _COMMAND_LEAD_ZH.sub("", text)  # "新建一个每周日打扫卫生的任务": the kind said after
            sorted_into = category_said(headless) if "category" in props and action.startswith(CREATES) else None
            if sorted_into is not None and len(headless.replace(sorted_into[1], "").strip(" ，,")) >= 2:
                headless = headless.replace(sorted_into[1], " ").strip(" ，,")  # "，分类放家务": no name of it
            # "添加食谱可乐鸡翅", "收藏一个食谱，酸辣土豆丝", "存张券，优衣库8折券": the command and the
            # kind of record it makes, glued to the name or a clause before it, are no part of it.
            # (the rest of the reading still sees the whole: "存个菜谱：…" heads a recipe's parts)
            if headless != text and len(headless) >= 2:
                matched = match_template(headless, templates, props, now)
            if matched is not None:
                args = {k: v for k, v in matched.items() if k in props}
            else:
                args = generic(headless, action, props, required, templates, now, read=spec.permission is Permission.READ)
        frequency = props.get("frequency", {}).get("enum", [])
        if "weekly" in frequency:
            # A habit keeps its frequency enum: 每天 → daily, 每周 → weekly, whatever the template said.
            m = _FREQUENCY_RE.search(text)
            if m:
                args["frequency"] = "weekly" if m.group("weekly") else "daily"
                for key in ("habit", "name"):
                    if isinstance(args.get(key), str):
                        args[key] = _FREQUENCY_RE.sub("", args[key]).strip(" ，,") or args[key]
        if repeat is not None:
            args["repeat"] = said
            first = rule.first(now)
            for key in required:  # a repeating event needs no start of its own: its first occurrence
                if key not in args and is_when(props.get(key, {})):
                    args[key] = first.strftime("%Y-%m-%d %H:%M") if rule.at else first.date().isoformat()
        if not action.startswith(CREATES):
            # A record looked up by its words: "the garage task" is "garage".
            for key in ("content", "title", "habit"):
                if isinstance(args.get(key), str):
                    value = args[key]
                    for _ in range(3):
                        value = _LOOKUP_LEAD_RE.sub("", _LOOKUP_NOUN_RE.sub("", value).strip()).strip()
                    if key == "title":  # "和王总的会", "跟王总那个会": the meeting is looked up by whom
                        value = _MEETING_WITH_RE.sub(lambda m: m.group("who") or m.group("who2"), value)
                    args[key] = value or args[key]
        if "priority" in props:
            # "…, high priority" / "…，优先级高": the priority, not part of the title.
            for key, value in list(args.items()):
                m = _PRIORITY_TAIL_RE.search(value) if isinstance(value, str) and key != "priority" else None
                if m and m.start() > 0:
                    args[key] = value[: m.start()].strip(" ，,")
                    level = (m.group("level") or m.group("level2") or m.group("level3") or "").casefold()
                    args["priority"] = "high" if level in ("high", "高") else "low" if level in ("low", "低") else "medium"
        if any(is_when(props.get(k, {})) for k in args):
            # "周五前交报销单": the 前 belongs to the deadline, not to the task.
            for key, value in list(args.items()):
                if isinstance(value, str) and not is_when(props.get(key, {})) and re.match(r"(?:之前|以前|前)\s*\S", value):
                    args[key] = re.sub(r"^(?:之前|以前|前)\s*", "", value)
        if spec.permission is Permission.READ:
            said = " ".join(str(v) for k, v in args.items() if is_when(props.get(k, {})) and isinstance(v, str))
            args = read_filters(strip_polite(text), props, args, self._literal(action), when=said)
        args = tidy(text, action, props, self._tidy_more(text, props, measures(text, props, structured(text, props, args))),
                    now)
        args = quoted_names(text, args)
        if isinstance(args.get("value"), str) and "value" in props:
            # A reading is its number ("was 7.2 two hours after lunch", "9,400", "120/80"),
            # when the words hold one.
            numbers = re.findall(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:/\d+(?:\.\d+)?)?", args["value"])
            if len(numbers) == 1 and numbers[0] != args["value"].strip():
                args["value"] = numbers[0].replace(",", "")
            elif not numbers and (reading := zh_reading(args["value"])) is not None:
                args["value"] = reading  # "血糖七点二", "心率，静息的，六十八": 7.2, 68
        if "metric" in props and spec.permission is not Permission.READ:
            # A reading names its metric ("走了12000步，记到健康数据里"): that name, not the words around it.
            named = metric_named(text)
            if named is not None and named not in str(args.get("metric", "")).casefold():
                args["metric"] = named
        if "new_title" in args and args.get("content") == args["new_title"]:
            del args["content"]  # "笔记标题改成“车险”": one quoted value read as both
        if noted is not None and note_key is not None:
            args[note_key] = noted.group("n").strip()
        if tags:
            args["tags"] = tags
        if link is not None:
            args["url"] = link.group(0)
        if spot is not None:
            lat, lon = (float(x) for x in re.split(r"\s*[,，]\s*", spot.group(0)))
            args["latitude"], args["longitude"] = lat, lon
        for key, value in list(args.items()):  # "Log my mood – stressed": the dash led into the value
            if isinstance(value, str) and re.match(r"[–—-]\s+\S", value):
                args[key] = value[1:].strip()
        if action.startswith(CREATES):
            args = whose_note(text, action, props, clause_note(text, action, props, money_note(text, props, args)))
            args = purpose_note(text, action, props, people(text, action, props, kept_at(text, action, props, args)))
            args = loan_zh(text, action, props, loan_en(text, action, props, args))
            if action == "add_person":
                contact(text, props, args)  # (after the clauses and people: who they are is read last)
        for key in ("note", "notes"):
            if isinstance(args.get(key), str) and key in props:
                args[key] = note_words(args[key])
        args = {k: v.replace(_HELD_COMMA, "，").replace(_HELD_COMMA_EN, ",") if isinstance(v, str) else v
                for k, v in args.items()}
        if titles:
            titled = re.compile(rf"\b({'|'.join(sorted(titles))}) (?=[A-Z])")
            args = {k: titled.sub(r"\1. ", v) if isinstance(v, str) else v for k, v in args.items()}
        for key in ("label", "title", "content", "note"):  # "标签姥姥家", "内容是：…": the value after its field's name
            value = args.get(key)
            if isinstance(value, str) and (field := _FIELD_HEAD_ZH.match(value)) and (field.group("f") != "标题" or key == "title"):
                args[key] = value[field.end():].strip() or value
        person = args.get("person")
        if isinstance(person, str) and (m := TITLE_EN.search(text)) and person.strip().rstrip(".") == m.group("t"):
            args["person"] = f"{m.group('t')}. {m.group('n')}"  # "lent my drill to Mr. Wang": not "Mr"
        if not action.startswith(CREATES):
            for key in ("content", "title", "habit", "item"):  # "the learn-to-swim goal": looked up by its words
                value = args.get(key)
                if isinstance(value, str) and re.search(r"\w\s+one$", value) and value.isascii():
                    value = args[key] = value[:-4].strip()  # "the dentist one": the dentist record
                if isinstance(value, str) and value.isascii() and re.search(r"\b(?:push|move|bring|put|set)\b", text, re.I):
                    value = args[key] = re.sub(r"(?<=\w)\s+(?:back|forward|ahead|up)$", "", value)  # "push X back"
                if isinstance(value, str) and value.count("-") >= 2 and re.fullmatch(r"[A-Za-z]+(?:-[A-Za-z]+)+", value):
                    args[key] = value.replace("-", " ")
        if numbered is not None:
            # The number names the record: the words it is looked up by (the schema's first
            # key after the id) are left out, what it becomes is kept.
            lookup = next((k for k in props if k != "id"), None)
            args = {k: v for k, v in args.items() if k != lookup}
            args["id"] = int(find_number(next(g for g in numbered.groups() if g)) or 0)
        if self.spans is None:
            return args
        # (items the route makes one call each, "apples, oat milk and rice", are a list, not a span)
        listed = {k: v for k, v in args.items() if k == "item" and isinstance(v, str) and len(split_items(v)) > 1}
        refined = {**self.spans.refine(said, args, props), **listed}
        lookup = next((k for k in props if k != "id"), "")
        if action.startswith(("update_", *_LOOKUP_ACTIONS)) and isinstance(refined.get(lookup), str):
            refined[lookup] = undated_name(refined[lookup])  # (a span may take in the day the record is on,
            if action.startswith(("complete_", "check_in_", "mark_")):  # or what is said of its being done)
                refined[lookup] = done_said(refined[lookup])
        names_apart(action, props, refined)  # (a span takes in whose kin they are: "我外孙明明" is 明明)
        return refined

    def _literal(self, action: str) -> tuple[str, ...]:
        """The literal parts of `action`'s templates around a slot of what it is about, or said
        by two templates: its command and question words. A template with no such slot says
        its nouns ("{from}打车花了多少", "我今天吃降压药了没"): no words of it are kept from a query."""
        key = (action, id(self.templates))
        cached = self._literal_cache.get(key) if hasattr(self, "_literal_cache") else None
        if cached is None:
            if not hasattr(self, "_literal_cache") or len(self._literal_cache) > 500:
                self._literal_cache: dict[tuple[str, int], tuple[str, ...]] = {}
            said = self._parts_said()
            cached = tuple(p for t in self.templates.get(action, []) for p in t.literal_parts()
                           if said[p] >= 2 or any(k not in _WHEN_SLOTS for k in t.slots))
            self._literal_cache[key] = cached
        return cached

    def _parts_said(self) -> Counter[str]:
        """How many templates, of every action, say each literal part: counted once for the
        templates in use, not once per action read."""
        if getattr(self, "_parts_said_of", None) != id(self.templates):
            self._parts_counted = Counter(p for templates in self.templates.values() for t in templates
                                          for p in set(t.literal_parts()))
            self._parts_said_of = id(self.templates)
        return self._parts_counted

    @staticmethod
    def _tidy_more(text: str, props: Mapping[str, Any], args: dict[str, Any]) -> dict[str, Any]:
        """Hedges off a mood, a possessive off a name, a mode's command off its reason."""
        for key in ("mood", "quality"):
            if isinstance(args.get(key), str):
                args[key] = strip_hedges(args[key])
        for key in ("note", "content", "title", "item"):  # "记一笔lunch": the command is not the note
            value = args.get(key)
            if isinstance(value, str) and re.match(r"(?:记一笔|记一下|记个|记录一下|帮我记)\s*\S", value):
                args[key] = re.sub(r"^(?:记一笔|记一下|记个|记录一下|帮我记)\s*", "", value)
        for key in ("title", "item", "dish"):  # "在读《三体》": the title is what the marks hold
            value = args.get(key)
            if not isinstance(value, str):
                continue
            m = re.search(r"《([^》]+)》?", value) or re.match(r"()([^《》]+)》", value)
            # ("《三体》读后感" is a note's title of its own; a book's, a show's or a loan's is in the marks:
            # "《漫长的季节》这部剧", "《奥本海默》标记成")
            if m and (not value[m.end():].strip(" ，,。.！!") or {"author", "kind", "direction"} & set(props)):
                args[key] = m.group(m.lastindex or 1).strip()
        args = pairs(text, props, args)
        if isinstance(args.get("pet"), str):  # "fed Max his dinner": the pet is Max
            pet = re.split(r"\s+(?:his|her|their|its)\b|'s\b|’s\b", args["pet"], maxsplit=1, flags=re.I)[0].strip()
            args["pet"] = pet or args["pet"]
        if isinstance(args.get("person"), str) and "direction" in props:  # "lent Tom $50": Tom
            args["person"] = re.sub(r"^(?:i\s+)?(?:lent|loaned|gave|borrowed from|owe|paid back)\s+", "", args["person"],
                                    flags=re.I) or args["person"]
        if isinstance(args.get("item"), str) and "quantity" in props:  # "买两盒牛奶" less 两盒 is 牛奶
            args["item"] = re.sub(r"^(?:买|buy)\s+", "", args["item"], flags=re.I) or args["item"]
            # "我得买点鸡蛋": the speaker and "some" are not the item.
            args["item"] = re.sub(r"^(?:我们?\s+)?(?:点|些|一些|一点)(?=\S)", "", args["item"]) or args["item"]
        if isinstance(args.get("title"), str) and args.get("status") in ("read", "reading"):
            # "finished reading Dune": the book is Dune
            args["title"] = re.sub(r"^(?:reading|读)\s*(?=\S)", "", args["title"], flags=re.I) or args["title"]
        if isinstance(args.get("title"), str) and "start" in props:  # "加个日程明天下午开会": 开会
            args["title"] = re.sub(r"^(?:日程|行程|事件)\s+", "", args["title"]) or args["title"]
        if "mode" in props and isinstance(args.get("reason"), str) and (
                find_mode(args["reason"].casefold()) or re.search(r"模式|\bmode\b|切换|切到|switch|swich|set the", args["reason"],
                                                                     re.I)):
            del args["reason"]  # the command itself is no reason
        return args

    def _answer_value(self, action: str, key: str, text: str) -> Any:
        spec = self.registry.get(action)
        prop = dict(spec.parameters).get("properties", {}).get(key, {}) if spec else {}
        if prop.get("type") == "array":
            return split_items(text)
        return text.strip("，,。.!！?？ ")

    def _calls(self, action: str, args: dict[str, Any], prediction: Prediction, lang: str, *,
               question: bool = False, ctx: _Context | None = None, reason: str = "confident") -> Route:
        spec = self.registry.get(action)
        assert spec is not None
        for whose in ("person", "pet", "plant"):
            if ctx is None or not isinstance(args.get(whose), str) or not _PERSON_PRONOUN_RE.match(args[whose].strip()):
                continue
            # "他刚还了200", "he just paid back 50", "And fed him": whom the last record named
            before: dict[str, Any] = next((a for _, a, _ in reversed(ctx.done) if isinstance(a.get(whose), str)), {})
            who = ctx.last_data.get(whose) or before.get(whose)
            if isinstance(who, str) and who.strip():
                args = {**args, whose: who}
                note = args.get("note")
                if isinstance(note, str) and _PERSON_PRONOUN_RE.match(note.strip()) and len(note) <= 16:
                    args = {k: v for k, v in args.items() if k != "note"}  # (what was left of the sentence)
        props = dict(spec.parameters).get("properties", {})
        last = None if ctx is None else (ctx.last_action, ctx.last_id) if ctx.last_id is not None else (
            (ctx.shown.action, ctx.shown.ids[0]) if ctx.shown is not None and len(ctx.shown.ids) == 1 else None)
        if (last is not None and "id" in props and "id" not in args
                and not action.startswith(CREATES) and _entity(last[0]) == _entity(action)):
            # "优先级设成高", "已经交了，标记完成吧", "and change the location to the hall" right after a
            # record (or a listing of one): no words of their own to look one up by, so that record.
            key = next((k for k in ("content", "title", "habit") if k in props), None)
            value = args.get(key) if key else None
            if key and (value in (None, "") or (isinstance(value, str) and _only_command_words(value, args, key))):
                args = {**{k: v for k, v in args.items() if k != key}, "id": last[1]}
        required = list(dict(spec.parameters).get("required", []))
        missing = [k for k in required if args.get(k) in (None, "", [])
                   or (isinstance(args[k], str) and _NO_ERRAND_RE.fullmatch(args[k].strip()))]
        if missing:
            args = {k: v for k, v in args.items() if k not in missing}
            if ctx is not None:
                ctx.pending = (action, args, missing[0])
            return Route("intent", action, prediction.confidence, answer=self._ask(spec.to_def(), missing[0], lang),
                         candidates=prediction.ranked[:5], question=question, language=lang, reason="missing slot")
        calls = [ToolCall(_call_id(), action, json.dumps(args, ensure_ascii=False))]
        item = args.get("item")
        # "milk and eggs": one call an item, to add or to tick off ("鸡蛋和西红柿都买到了")
        if action.startswith(("add_", "mark_")) and isinstance(item, str) and len(split_items(item)) > 1:
            calls = [ToolCall(_call_id(), action, json.dumps({**args, "item": one}, ensure_ascii=False))
                     for one in split_items(item)]
        return Route("intent", action, prediction.confidence, calls=calls, candidates=prediction.ranked[:5],
                     question=question, language=lang, reason=reason)

    def _ask(self, tool: ToolDef, key: str, lang: str) -> str:
        desc = str(dict(tool.parameters).get("properties", {}).get(key, {}).get("description", key))
        zh, _, en = desc.partition(" / ")
        zh = re.sub(r"（.*?）", "", zh).strip() or key
        en = re.sub(r"\(.*?\)", "", en or key).strip()
        return f"好的，请告诉我{zh}？" if lang == "zh" else f"Sure, what is the {en}?"

    def _follow_up(self, text: str, prediction: Prediction, ctx: _Context, lang: str) -> Route | None:
        """"把它改到4点", "delete that one", "再加一个鸡蛋": the record the last turn touched."""
        again = _AGAIN_RE.match(text)
        writer = self._writer_of(ctx.asked[0]) if ctx.asked is not None else None
        if again and again.end() < len(text) and writer is not None:
            # "How much water have I had today?" … "Add another 250": one more where the read looked
            return self._one_more(writer, text[again.end():], prediction, ctx, lang)
        another_day = self._another_day(text, ctx, prediction, lang)
        if another_day is not None:
            return another_day
        if not ctx.last_action:
            return None
        entity = _entity(ctx.last_action)
        field = self._field_change(text, ctx, prediction, lang)
        if field is not None:
            return field
        new_time = self._new_time(text, ctx, prediction, lang)
        if new_time is not None:
            return new_time
        too = _TOO_RE.match(text)  # "and oranges too": one more of the same
        if too and ctx.last_action.startswith(_LOOKUP_ACTIONS):
            # "and the piano one too" right after ticking one off: the same, on the record named
            lookup = self._lookup_key(ctx.last_action)
            name = _THE_ONE_RE.sub("", too.group(1)).strip()
            if lookup is not None and len(name) >= 2:
                return Route("intent", ctx.last_action, 1.0, calls=[ToolCall(_call_id(), ctx.last_action, json.dumps(
                    {lookup: name}, ensure_ascii=False))], candidates=prediction.ranked[:5], language=lang,
                    reason="follow-up: too")
        if too:
            text = "also add " + too.group(1)
        more = _AND_MORE_RE.match(text)
        if (more and ctx.last_action.startswith(("add_", "record_", "create_"))
                and not _CHANGE_RE.search(more.group("x") or more.group("zh") or "")
                and (prediction.label in (NONE_LABEL, ctx.last_action) or prediction.confidence < self.threshold)):
            text = "also add " + (more.group("x") or more.group("zh")).strip()  # "and bread": one more of the same
        remind = _REMIND_AT_RE.match(text)
        if remind and ctx.last_id is not None and _entity(ctx.last_action) == "habit" and "update_habit" in self._actions:
            # "每天晚上八点提醒我" right after a habit: that habit's reminder time.
            args = {"id": ctx.last_id, "remind_at": (remind.group("t") or remind.group("en")).strip()}
            return Route("intent", "update_habit", 1.0, calls=[ToolCall(_call_id(), "update_habit", json.dumps(
                args, ensure_ascii=False))], candidates=prediction.ranked[:5], language=lang, reason="follow-up")
        again = _AGAIN_RE.match(text)
        if again and again.end() < len(text) and ctx.last_action.startswith(("add_", "create_", "record_")):
            return self._one_more(ctx.last_action, text[again.end():], prediction, ctx, lang)
        shift = find_shift(text)
        if shift is not None and bare(shift) and ctx.last_id is not None and not _ASKS_RE.search(text):
            # "往后推一个小时", "push it back an hour": the record's own time, moved.
            shifted = self._shift_call(_entity(ctx.last_action), {"id": ctx.last_id}, ctx.last_data, shift)
            if shifted is not None:
                return Route("intent", shifted.name, 1.0, calls=[shifted], candidates=prediction.ranked[:5],
                             language=lang, reason="follow-up: shift")
        # "改到下午两点吧", "算了，删了吧" right after a record: a bare verb means that record.
        bare_verb = _is_bare(text)
        if not (_PRONOUN_RE.search(text) or bare_verb) or ctx.last_id is None:
            return None
        named = _NAMED_THAT_ZH.search(text)
        name = _NAME_LEAD_ZH.sub("", named.group("x")) if named is not None and not bare_verb else ""
        verb = _verb_of(text)
        if verb is None:
            return None
        target = self._target(verb, entity)
        if target is None:
            return None
        if len(name) >= 2:
            # "还有打印合同那个，也删了": the same verb on the record those words name, not the last one
            lookup = self._lookup_key(target)
            if lookup is None or verb != "delete":
                return None
            return Route("intent", target, 1.0, calls=[ToolCall(_call_id(), target, json.dumps({lookup: name}, ensure_ascii=False))],
                         candidates=prediction.ranked[:5], language=lang, reason="follow-up: named")
        args = self._record_args(target, verb, ctx.last_id, text, ctx)
        return Route("intent", target, 1.0, calls=[ToolCall(_call_id(), target, json.dumps(args, ensure_ascii=False))],
                     candidates=prediction.ranked[:5], language=lang, reason="follow-up")

    def _another_day(self, text: str, ctx: _Context, prediction: Prediction, lang: str) -> Route | None:
        """"And yesterday's as well", "昨天也跑了，一道补上" right after a check-in or a record:
        the same again, on the day said."""
        # (what the last turn did: a check-in keeps its habit as the record "it" means)
        action, before = (ctx.done[-1][0], ctx.done[-1][1]) if ctx.done else ("", {})
        if not action.startswith(("check_in_", "record_")) or not _ALSO_RE.search(text) or len(text) > 40 \
                or _ASKS_RE.search(text) or _QUESTION_RE.search(text):
            return None
        found = find_when(text)
        spec = self.registry.get(action)
        if found is None or spec is None:
            return None
        props = dict(spec.parameters).get("properties", {})
        when_keys = [k for k in props if is_when(props[k])]
        if not when_keys:
            return None
        # (what was said of that one time, its note, is not said again)
        args = {k: v for k, v in before.items() if k not in when_keys and k not in ("id", "note", "notes")}
        key = next((k for k in when_keys if k in before), when_keys[0])
        args[key] = found[0]
        said = self.fill(action, text)

        def names_another(value: str, was: str) -> bool:
            # words beyond "also" and a command that the record before does not have
            words = _ALSO_RE.sub("", value)
            return not command_clause(words.replace("的", "")) and not (
                _norm_words(words) in _norm_words(was) or _norm_words(was) in _norm_words(value))

        if any(isinstance(v, str) and isinstance(before.get(k), str) and k not in when_keys and names_another(v, before[k])
               for k, v in said.items() if k in _LOOKUP_KEYS or k in ("food", "activity", "meal", "medicine")):
            return None  # "昨天晚饭吃的饺子也补上": another record, of its own words
        # a new count or amount said with it ("昨天也喝了三杯"); its words name nothing new
        args.update({k: v for k, v in said.items()
                     if k in props and k in args and k not in when_keys and k not in _LOOKUP_KEYS
                     and (isinstance(v, int | float) and not isinstance(v, bool) or isinstance(v, str) and re.search(r"\d|[一两二三四五六七八九十半]", v))})
        return self._calls(action, args, prediction, lang, ctx=ctx, reason="follow-up: another day")

    def _new_time(self, text: str, ctx: _Context, prediction: Prediction, lang: str) -> Route | None:
        """"tonight at 9", "今晚九点", "every Friday at 5" alone, right after a task or an event was
        made or changed: that record's time (or its repeat), not a new record with no name."""
        entity = _entity(ctx.last_action)
        if (ctx.last_id is None or entity not in ("task", "event") or not ctx.last_action.startswith(("create_", "update_"))
                or len(text) > 40 or _QUESTION_RE.search(text) or _ASKS_RE.search(text)):
            return None
        update = f"update_{entity}"
        spec = self.registry.get(update)
        if spec is None:
            return None
        props = dict(spec.parameters).get("properties", {})
        key = next((k for k in ("due", "start") if k in props), None)
        repeat = find_repeat(text) if "repeat" in props else None
        found = None if repeat is not None else find_when(text)
        span = repeat[1] if repeat is not None else found[1] if found is not None else None
        if key is None or span is None or not _BARE_TIME_RE.fullmatch(text[:span[0]] + " " + text[span[1]:]):
            return None
        said = text[span[0]:span[1]].strip()
        args: dict[str, Any] = {"id": ctx.last_id, **({"repeat": said} if repeat is not None else {key: self._same_day(said, ctx)})}
        return self._calls(update, args, prediction, lang, ctx=ctx, reason="follow-up: a new time")

    def _one_more(self, action: str, rest: str, prediction: Prediction, ctx: _Context, lang: str) -> Route:
        """"再加一个鸡蛋", "add another 250": one more record of `action`, of the words after."""
        args = self.fill(action, rest)
        main = _main_key(self.registry.get(action))
        if main and not args.get(main):
            args[main] = rest.strip("，,。. ")
        # One more of the same kind: whose it is and what kind carry over ("Also Slow Horses"
        # after a show to watch); a pronoun for whose it is ("And fed him") is _calls' to resolve.
        before: dict[str, Any] = next((a for name, a, _ in reversed(ctx.done) if name == action), {})
        for key in _CARRIED_KEYS:
            if key in before and key != main and args.get(key) is None:
                args[key] = before[key]
        return self._calls(action, args, prediction, lang, ctx=ctx, reason="follow-up: again")

    def _read_again(self, text: str, prediction: Prediction, ctx: _Context, lang: str) -> Route | None:
        """"and yesterday?", "what about in Xuhui?", "那上个月呢", "只要5条" right after a read or a
        search: the same one again, with what changed said (a day, a place, a keyword, a count)."""
        m = _READ_AGAIN_RE.match(text.strip())
        if ctx.asked is None or m is None:
            return None
        narrowed = m.group("f") or m.group("fz")
        if (prediction.label not in (NONE_LABEL, ctx.asked[0]) and prediction.confidence >= self.threshold
                and not self._is_read(prediction.label) and not narrowed):
            return None  # (a narrowing, "only the done ones", is the read's whatever the classifier says)
        name, before = ctx.asked
        spec = self.registry.get(name)
        if spec is None:
            return None
        props = dict(spec.parameters).get("properties", {})
        args = dict(before)
        said = next((g for g in (m.group("a"), m.group("b"), m.group("c"), narrowed) if g), "").strip()
        if re.search(r"\b(?:one|ones|first|second|third|last|number|it|that|this)\b|#\s?\d|第\S{1,2}(?:个|条|项)|这个|那个", said, re.I):
            return None  # ("and the second one?", "那个呢": a record of what was listed, `_from_listing`'s)
        count = m.group("n") or m.group("n2")
        when_keys = [k for k in props if is_when(props[k])]
        if count is not None:
            if "limit" not in props:
                return None
            args["limit"] = int(parse_number(count) or find_number(count) or 0) or None
        elif (step := _NEXT_DAY_RE.fullmatch(said)) is not None:
            day = next((args[k] for k in ("from", "date") if isinstance(args.get(k), str)), None)
            if day is None or "from" not in props:
                return None
            try:
                then = parse_when(day, self.clock.now()).day + timedelta(days=-1 if step.group("back") or step.group("back2") else 1)
            except DateError:
                return None
            args["from"] = then.isoformat()
            if "to" in props:
                args["to"] = then.isoformat()
        else:
            new = {k: v for k, v in self.fill(name, said).items() if v not in (None, "", [])}
            filters = {k: v for k, v in new.items() if k not in when_keys and k != "query" and k in props}
            if narrowed and filters:  # the same read, narrowed by what was said
                args.update(filters)
            elif narrowed:
                return None
            elif any(k in new for k in when_keys):
                args = {k: v for k, v in args.items() if k not in when_keys}
                args.update({k: new[k] for k in when_keys if k in new})
            elif "query" in props and isinstance(args.get("query"), str) and re.match(r"(?:in|at|near|for|on)\s", said, re.I):
                # "what about in Xuhui?" after "best dim sum in Jing'an": the place in the same words
                lead = said.split()[0].casefold()
                query = args["query"]
                at = query.casefold().rfind(f" {lead} ")
                args["query"] = (query[:at] + " " + said) if at >= 0 else f"{query} {said}"
            elif "query" in props and (new.get("query") or (len(said) <= 12 and said)):
                args["query"] = new.get("query") or said
            else:
                return None
        return self._calls(name, args, prediction, lang, question=True, ctx=ctx, reason="follow-up: read again")

    def _field_change(self, text: str, ctx: _Context, prediction: Prediction, lang: str) -> Route | None:
        """"地点在公司三楼会议室", "tag it work", "再补一句，车位月租300" right after a record: one
        field of that record, named and given, when the record's kind has it."""
        if ctx.last_id is None:
            return None
        target = self._target("update", _entity(ctx.last_action))
        spec = self.registry.get(target) if target else None
        if target is None or spec is None:
            return None
        props = dict(spec.parameters).get("properties", {})
        said = _WHILE_AT_IT_RE.sub("", text.strip())
        for key, rx in _FIELD_RES:
            m = rx.match(said)
            if m is None or key not in props:
                continue
            value = next((g for g in m.groups() if g), "").strip(" ，,。.!！\"'“”")
            if key == "priority":
                value = _PRIORITY_WORDS.get(value.casefold(), "")
            if not value:
                continue
            args = {"id": ctx.last_id, key: [value] if props[key].get("type") == "array" else value}
            return Route("intent", target, 1.0, calls=[ToolCall(_call_id(), target, json.dumps(args, ensure_ascii=False))],
                         candidates=prediction.ranked[:5], language=lang, reason="follow-up: field")
        return None

    def _lookup_key(self, name: str) -> str | None:
        """The argument `name` looks a record up by (content, title, habit, item…), if any."""
        spec = self.registry.get(name)
        props = dict(spec.parameters).get("properties", {}) if spec is not None else {}
        return next((k for k in _LOOKUP_KEYS if k in props), None)

    def _target(self, verb: str, entity: str) -> str | None:
        """The action doing `verb` to records of `entity` ("delete", "task" → delete_task)."""
        target = next((n for n in self._actions if n.startswith(verb) and _entity(n) == entity), None)
        if target is None and verb == "complete":
            target = next((n for n in self._actions if n.startswith("mark_") and _entity(n) == entity), None)
        return target

    def _record_args(self, target: str, verb: str, record: int, text: str, ctx: _Context) -> dict[str, Any]:
        """A follow-up's arguments for one record: its id, and for a change what changes."""
        args: dict[str, Any] = {"id": record}
        spec = self.registry.get(target)
        if spec is not None and verb == "update":
            props = dict(spec.parameters).get("properties", {})
            extracted = generic(text, target, props, [], self.templates.get(target, []), self.clock.now(), read=True)
            args.update({k: self._same_day(v, ctx) if is_when(props.get(k, {})) else v
                         for k, v in extracted.items() if k != "id"})
            # what the action's own rules read and the generic pass did not ("add 200 to it")
            args.update({k: v for k, v in self.fill(target, text).items()
                         if k not in args and k not in _LOOKUP_KEYS and v not in (None, "", [])})
            recurrence = find_repeat(text) if "repeat" in props else None
            if recurrence is not None:
                args["repeat"] = text[recurrence[1][0]:recurrence[1][1]].strip(" ，,")
            bare_number = _BARE_NUMBER_RE.match(text.strip())
            if len(args) == 1 and bare_number is not None:
                # "actually make it 10", "改成3次吧": the record's count, or the hour of its time.
                number = bare_number.group("n") or bare_number.group("n2")
                timed = next((k for k in ("due", "start") if k in props and ctx.last_data.get(k)), None)
                if "target" in props and ctx.last_data.get("target") is not None and ":" not in number:
                    args["target"] = int(parse_number(number) or 0)
                elif timed is not None and (bare_number.group("ap") or bare_number.group("clock") or ":" in number
                                            or int(number.split(":")[0]) <= 12):
                    said = number if ":" in number else f"{number}:00"
                    args[timed] = self._same_day(said + (bare_number.group("ap") or ""), ctx)
        return args

    def _from_listing(self, said: str, text: str, prediction: Prediction, ctx: _Context, lang: str) -> Route | None:
        """"把第二个删了", "第三个是什么来着", "那昨天呢", "next page": what the last turn listed."""
        listing = ctx.shown
        spec = self.registry.get(listing.action) if listing is not None else None
        if listing is None or spec is None:
            return None
        props = dict(spec.parameters).get("properties", {})

        def call(name: str, args: dict[str, Any], reason: str) -> Route:
            return Route("intent", name, 1.0, calls=[ToolCall(_call_id(), name, json.dumps(args, ensure_ascii=False))],
                         candidates=prediction.ranked[:5], language=lang, reason=reason)

        if NEXT_PAGE_RE.match(text) and "offset" in props:
            return call(listing.action, {**listing.args, "offset": listing.offset + len(listing.ids)}, "follow-up: next page")
        writer = self._writer_of(listing.action)
        asked = listing.args.get("query")
        if _ADD_IT_RE.match(text) and writer is not None and isinstance(asked, str) and asked.strip():
            # "is milk on the list?" … "ok add it then": what was asked about, added.
            main = _main_key(self.registry.get(writer))
            if main is not None:
                return call(writer, {main: asked.strip()}, "follow-up: add what was asked about")
        which = ordinal(text)
        at = row_of(listing, which) if which is not None else None
        verb_said = _verb_of(text)
        named = named_words(text) if at is None and verb_said is not None else None
        if named is not None:
            at = named_row(listing, named)  # "delete the prom one", "周报那个删了"
            target = self._target(verb_said, _entity(listing.action)) if verb_said is not None and at is None else None
            lookup = self._lookup_key(target) if target is not None else None
            if target is not None and lookup is not None and verb_said != "update":
                # named, but not on the rows shown: the action finds the record by those words
                return call(target, {lookup: named}, "follow-up: named")
        more = _ADD_MORE_RE.match(text.strip()) if len(listing.ids) == 1 and _entity(listing.action) == "goal" else None
        if at is None and len(listing.ids) == 1 and (more or (_PRONOUN_RE.search(text) and verb_said is not None)):
            at = 0  # "how's my savings goal?" … "add 200 to it", "再加300": the one record shown
        if at is not None:
            record = listing.ids[at]
            verb = "update" if more else verb_said
            target = self._target(verb, _entity(listing.action)) if verb is not None else None
            if target is not None and verb is not None:
                return call(target, self._record_args(target, verb, record, text, ctx), "follow-up: listed row")
            if verb is None and len(text) <= 24:
                # "第三个是什么来着": that row, said again; it is then the record "it" means.
                ctx.last_action, ctx.last_id = listing.action, record
                ctx.last_data = dict(listing.rows[at]) if at < len(listing.rows) else {}
                ctx.listed = listing
                line = listing.lines[at] if at < len(listing.lines) else f"#{record}"
                return Route("intent", listing.action, 1.0, answer=line, candidates=prediction.ranked[:5], language=lang,
                             reason="follow-up: listed row")
            return None
        rest = asked_again(said) or asked_again(text)
        if rest is None and _NARROW_RE.search(text) and not _CHANGE_RE.search(text) and len(text) <= 40 and (
                _QUESTION_RE.search(text) or _ASKS_RE.search(text)) and (
                prediction.label in (NONE_LABEL, listing.action) or prediction.confidence < self.threshold
                or _IN_IT_RE.search(text)):
            # "有酱油吗", "is there coffee on it?", "其中打车多少" right after a listing: the same
            # listing, narrowed to what is asked about (its period and filters kept).
            new = {k: v for k, v in self.fill(listing.action, text).items()
                   if v not in (None, "", []) and k not in ("offset", "status")}
            if new:
                when_keys = [k for k, p in props.items() if is_when(p) or k in ("from", "to", "days", "within_days")]
                return call(listing.action, again_args(listing, new, when_keys), "follow-up: narrowed")
        if rest is None or _CHANGE_RE.search(rest):
            return None
        new = {k: v for k, v in self.fill(listing.action, rest).items() if v not in (None, "", []) and k != "offset"}
        if not new:
            return None
        when_keys = [k for k, p in props.items() if is_when(p) or k in ("from", "to", "days", "within_days")]
        return call(listing.action, again_args(listing, new, when_keys), "follow-up: asked again")

    def _shift_call(self, entity: str, ref: dict[str, Any], record: Mapping[str, Any], shift: Shift) -> ToolCall | None:
        """The update moving `record`'s time (and an event's end with its start) by `shift`."""
        target = next((n for n in self._actions if n.startswith("update_") and _entity(n) == entity), None)
        spec = self.registry.get(target) if target else None
        if target is None or spec is None:
            return None
        props = dict(spec.parameters).get("properties", {})
        args = dict(ref)
        for key in ("due", "start", "end"):
            if key in props and isinstance(record.get(key), str) and record[key]:
                moved = apply_shift(record[key], shift)
                if moved is None:
                    return None
                args[key] = moved
        if len(args) == len(ref) or "end" in args and len(args) == len(ref) + 1:
            return None  # nothing of its time to move
        return ToolCall(_call_id(), target, json.dumps(args, ensure_ascii=False))

    async def _shift_named(self, text: str, member: str, channel: str, ctx: _Context) -> Route | Literal["several"] | None:
        """"把交电费往后推一天", "push the dentist back an hour": the record those words name,
        looked up as the member would list it, its time moved by the shift. "several" when
        the words name more than one record (never guessed), None when they name none."""
        if not self.model.ready or ctx.pending is not None:
            return None
        stripped = strip_polite(text)
        shift = find_shift(stripped)
        if shift is None or bare(shift) or _ASKS_RE.search(stripped) or (
                _QUESTION_RE.search(stripped) and not _REQUEST_RE.search(stripped)):
            return None
        words = name_of(shift)
        if not words or len(words) > 40:
            return None
        lang = "zh" if has_han(text) else "en"
        look = ToolContext(turn_id="intent_lookup", channel=channel, now=self.clock.now, member=member, language=lang)
        found: list[tuple[str, dict[str, Any]]] = []
        for name in self._actions:
            entity = _entity(name)
            listing = f"list_{entity}s"
            if not name.startswith("update_") or listing not in self._actions:
                continue
            props = dict(self._actions[listing].parameters).get("properties", {})
            query: dict[str, Any] = {"query": words}
            if "from" in props:  # a calendar lists a week unless told: the year ahead
                today = self.clock.now().date()
                query.update({"from": today.isoformat(), "to": today.replace(year=today.year + 1).isoformat()})
            result = await self.registry.execute(ToolCall(_call_id(), listing, json.dumps(query, ensure_ascii=False)),
                                                 look)
            rows = result.display.data if result.ok and result.display is not None else None
            if isinstance(rows, list):
                found += [(entity, dict(r)) for r in rows if isinstance(r, Mapping) and isinstance(r.get("id"), int)
                          and (r.get("due") or r.get("start"))]
        if len(found) > 1:
            return "several"
        if not found:
            return None
        entity, record = found[0]
        call = self._shift_call(entity, {"id": record["id"]}, record, shift)
        if call is None:
            return None
        return Route("intent", call.name, 1.0, calls=[call], language=lang, reason="shift")

    def _same_day(self, value: Any, ctx: _Context) -> Any:
        """"把它改到4点" keeps the record's day, and a bare 4点 after an afternoon is 16:00;
        "改到周五" keeps a timed record's time of day."""
        if not isinstance(value, str):
            return value
        if find_day(value):
            return self._same_time(value, ctx)
        try:
            when = parse_when(value, self.clock.now())
        except DateError:
            return value
        if not when.has_time:
            return value
        hour = when.value.hour
        before = next((str(ctx.last_data[k]) for k in ("due", "start", "date", "time") if ctx.last_data.get(k)), "")
        m = re.match(r"(\d{4}-\d{2}-\d{2})(?:T(\d{2}))?", before)
        if m is None:
            return value
        if hour < 8 and not re.search(r"am|早|上午|凌晨", value, re.I):
            hour += 12
        return f"{m.group(1)} {hour:02d}:{when.value.minute:02d}"

    def _same_time(self, value: str, ctx: _Context) -> str:
        try:
            when = parse_when(value, self.clock.now())
        except DateError:
            return value
        before = next((str(ctx.last_data[k]) for k in ("due", "start") if ctx.last_data.get(k)), "")
        m = re.match(r"\d{4}-\d{2}-\d{2}[T ](\d{2}:\d{2})", before)
        if when.has_time or m is None or value in ("下周", "next week", "下个月", "next month"):
            return value
        return f"{when.day.isoformat()} {m.group(1)}"

    def _to_model(self, text: str, lang: str, prediction: Prediction | None, tools: Sequence[ToolDef],
                  question: bool = False, *, reason: str, offer_actions: bool = True) -> Route:
        ranked = prediction.ranked if prediction else []
        names = [n for n, _ in ranked if n in self._actions and (not question or self._is_read(n))]
        chosen = names[: self.settings.top_k] if offer_actions else []
        others = [t for t in tools if t.name not in self._actions]
        by_name = {t.name: t for t in tools}
        offered = tuple(by_name[n] for n in chosen if n in by_name) + tuple(others)
        return Route("model", prediction.label if prediction else NONE_LABEL,
                     prediction.confidence if prediction else 0.0, tools=offered,
                     candidates=ranked[:5], question=question, language=lang, reason=reason)

    # -- after the actions ran ----------------------------------------------------------

    def answered(self, route: Route, results: Sequence[ToolResult], member: str = "", channel: str = "",
                 text: str = "") -> str:
        """The answer to an intent-layer action: the actions' own result text."""
        ctx = self._contexts.setdefault((member, channel), _Context())
        undo = route.reason == "undo"
        if not undo:
            ctx.last_text = text
        sent = {c.id: json.loads(c.arguments or "{}") for c in route.calls}
        reads = [c for c in route.calls if self._is_read(c.name) or c.name == "web_search"]
        ctx.asked = (reads[0].name, sent.get(reads[0].id, {})) if len(reads) == 1 == len(route.calls) else None
        ctx.done = [] if undo else [
            (r.name, sent.get(r.call_id, {}), dict(r.display.data))
            for r in results if r.ok and r.display is not None and isinstance(r.display.data, Mapping)]
        if undo:
            ctx.last_action, ctx.last_id = "", None
        for result in results:
            shown = listing_of(result.name, sent.get(result.call_id, {}), str(result.content),
                               result.display.data if result.ok and result.display is not None else None)
            if shown is not None:
                ctx.listed = shown
        for result in (() if undo else reversed(results) if route.reason == "retarget" else results):
            data = result.display.data if result.display is not None else None
            if result.ok and isinstance(data, Mapping) and isinstance(data.get("id"), int):
                if result.name.startswith(CREATES) or result.name != ctx.last_action:
                    ctx.last_data = dict(data)
                else:
                    ctx.last_data = {**ctx.last_data, **dict(data)}
                ctx.last_action, ctx.last_id = result.name, int(data["id"])
        ok = [r.content.strip() for r in results if r.ok and r.content.strip()]
        said = "\n".join(ok or [r.content.strip() for r in results if r.content.strip()])
        return "".join(p for p in (route.prefix, said, ("\n" + route.suffix) if route.suffix else "") if p)

    def remember_text(self, text: str, member: str = "", channel: str = "") -> None:
        ctx = self._contexts.setdefault((member, channel), _Context())
        ctx.last_text, ctx.done, ctx.asked = text, [], None

    async def learn(self, text: str, action: str, args: Mapping[str, Any], member: str = "") -> None:
        """Store a household example (a correction); the next retrain uses it."""
        if self.db is None:
            return
        await self.db.execute(
            "INSERT INTO intent_examples (text, action, arguments, member, created_at) VALUES (?, ?, ?, ?, ?)",
            (text, action, json.dumps(dict(args), ensure_ascii=False), member,
             self.clock.now().isoformat(timespec="seconds")),
        )
        log.info("intent.learned", action=action)

    # -- who it is, what it can do -------------------------------------------------------

    def who_am_i(self, lang: str) -> str:
        text = self.personality
        if lang == "zh":
            m = re.search(r"^-\s*(你是.+)$", text, re.M)
            intro = m.group(1).replace("你是", "我是", 1) if m else "我是这个家的 AI 管家。"
            return f"你好！{intro.rstrip('。')}。你可以问“你能做什么”看看我能帮上什么。"
        m = re.search(r"^You are (.+?\.)", text, re.M)
        intro = ("I am " + m.group(1)) if m else "I am the household's AI assistant."
        return f"Hello! {intro} Ask \"what can you do?\" to see how I can help."

    def help_text(self, lang: str) -> str:
        by_category: dict[str, list[str]] = {}
        spec: Any
        for spec in self.registry:
            if spec.category not in CATEGORIES:
                continue
            for line in spec.examples:
                said = line.split("→")[0].strip()
                if said and (has_han(said) == (lang == "zh")):
                    by_category.setdefault(spec.category, []).append(said)
                    break
        lines = ["我可以帮家里做这些事，直接说就行：" if lang == "zh" else "Here is what the household can ask me:"]
        for key, (zh, en) in CATEGORIES.items():
            said = by_category.get(key, [])[:2]
            if said:
                quoted = "、".join(f"“{s}”" for s in said) if lang == "zh" else ", ".join(f'"{s}"' for s in said)
                lines.append(f"- {zh}：{quoted}" if lang == "zh" else f"- {en}: {quoted}")
        return "\n".join(lines)


def fingerprint_sources() -> tuple[str, ...]:
    """The package's files a trained model depends on (the phrase books included)."""
    books = sorted(p.name for p in Path(__file__).parent.glob("phrases*.py"))
    return ("training.py", "classifier.py", *books)


def _fingerprint(key: str) -> str:
    """What a trained model depends on: the registry's examples and the settings (`key`),
    the code that turns them into training text and features, and scikit-learn's version."""
    digest = hashlib.sha256(key.encode())
    here = Path(__file__).parent
    for name in fingerprint_sources():
        digest.update((here / name).read_bytes())
    try:
        digest.update(metadata.version("scikit-learn").encode())
    except metadata.PackageNotFoundError:
        pass
    return digest.hexdigest()


_COMMAND_WORDS_RE = re.compile(
    r"优先级|设成|设为|设置|改成|改为|改到|换成|换到|调成|调到|标记|完成|搞定|勾掉|位置|地点|地方|标签|截止|时间|日期|提醒|一下|吧|了|的|高|低|中"
    r"|\b(?:and|also|then|change|set|make|mark|it|as|the|to|location|venue|place|priority|tag|done|complete|high|low|medium)\b", re.I)


def _verb_of(text: str) -> str | None:
    """The verb a follow-up says ("delete", "complete", "update"), if any."""
    return next((v for v, rx in _VERB_WORDS if rx.search(text)), None)


def _norm_words(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).casefold()


# What may be said around a time alone that changes the last record's ("actually make it
# tonight at 9", "改成明天上午十点吧"): nothing of a record of its own.
_BARE_TIME_RE = re.compile(r"(?:actually|no|nah|sorry|oh|make\s+(?:it|that)|change\s+(?:it|that)\s+to|move\s+(?:it|that)\s+to|"
                           r"for|on|at|then|please|pls|instead|改成|改到|换成|挪到|改|就|那就|还是|算了|吧|呢|啊|哦|喔|哈|"
                           r"[\s,.!，。！、])*", re.I)
# What is left of "remind me later" / "晚点再提醒我" once the command is taken away: when,
# with no errand. A required value of these words alone is no value: the layer asks for it.
_NO_ERRAND_RE = re.compile(
    r"(?:(?:later(?:\s+on)?|soon|again|then|afterwards|some\s*time|another\s+time|"
    r"(?:in\s+)?(?:a\s+)?(?:bit|while|minute|min|sec|second|moment|few))[\s.!?]*)+|"
    r"(?:晚点儿?|晚些(?:时候)?|待会儿?|等会儿?|一会儿?|过会儿?|回头|稍后|以后|迟点|再|一下|吧|啊)+", re.I)


def _only_command_words(value: str, args: Mapping[str, Any], key: str) -> bool:
    """Whether `value`, less the other slots' values, is only an update's own words."""
    rest = value
    for other, said in args.items():
        if other != key and isinstance(said, str) and said.strip():
            rest = rest.replace(said, " ")
    # (what is said of its being done, "已经交了", "终于写完了", names nothing either)
    rest = re.sub(r"(?:已经|终于|总算|刚刚?|都)?(?:交|做|写|办|弄|搞|修|洗|收|拿|领|买|还|付|缴|填)(?:完|好|掉)?了", " ", rest)
    rest = _COMMAND_WORDS_RE.sub(" ", rest)
    return not re.search(r"[\u4e00-\u9fff]{2,}|[A-Za-z]{3,}", rest)


_ENTITY_ZH = {"task": "任务", "event": "日程", "habit": "习惯", "inventory": "物品", "countdown": "倒计时", "note": "笔记"}


def _entity(name: str) -> str:
    for verb in sorted(_VERBS, key=len, reverse=True):
        if name.startswith(verb + "_"):
            name = name[len(verb) + 1:]
            break
    for suffix in ("_item", "_progress", "_bought"):
        name = name.removesuffix(suffix)
    return name.removesuffix("s")


def _main_key(spec: Any) -> str | None:
    if spec is None:
        return None
    props = dict(spec.parameters).get("properties", {})
    for key in dict(spec.parameters).get("required", []):
        if props.get(key, {}).get("type") == "string" and "enum" not in props[key] and not is_when(props[key]):
            return str(key)
    return None


def _is_bare(text: str) -> bool:
    """Only a verb and perhaps a time ("改到下午两点吧", "算了，删了吧", "move it to 5"): no object
    of its own, so it can only mean the record just touched."""
    rest = text
    for _, rx in _VERB_WORDS:
        rest = rx.sub(" ", rest)
    found = find_when(rest)
    if found is not None:
        rest = rest.replace(found[0], " ")
    recurrence = find_repeat(rest)
    if recurrence is not None:  # "改成每隔一天": a rule of its own is no object either
        rest = rest[:recurrence[1][0]] + " " + rest[recurrence[1][1]:]
    rest = _BARE_FILLER_RE.sub(" ", rest)
    rest = re.sub(r"到|掉|成|为|\b(?:to|it|that|on|at|for|the|please|instead)\b", " ", rest, flags=re.I)
    rest = re.sub(r"(?:\d{1,2}|[一二两三四五六七八九十]{1,3})\s*次", " ", rest)  # "改成四次": a count, no object
    return len(rest.replace(" ", "")) <= 1 if has_han(text) else not rest.split()


def _says_nothing_to_do(text: str) -> bool:
    """No word that asks for a change or holds a value to keep, no destination, no time."""
    return not _ASKED_FOR_RE.search(text) and destination(text) is None and find_when(text) is None


def _is_remark(text: str, confidence: float = 0.0) -> bool:
    """Said, not asked: a remark's mark and nothing that asks for a change or holds a value.
    A laugh or a sigh alone is no remark where the classifier is all but certain of a record
    ("biscuit had his bath today he HATED it lol")."""
    if not _REMARK_RE.search(text) or _ASKED_FOR_RE.search(text):
        return False
    return confidence < _SURE or bool(_REMARK_RE.search(_LAUGH_RE.sub(" ", text)))


def _key(text: str) -> str:
    """An utterance as the household's examples are looked up: polite words, spaces and
    punctuation aside, case folded."""
    return re.sub(r"[\s\W_]+", "", strip_polite(text)).casefold()


def _call_id() -> str:
    return "intent_" + uuid.uuid4().hex[:12]


def context_for(route: Route) -> dict[str, str]:
    return {"language": route.language}


__all__ = ["IntentLayer", "IntentSettings", "Route", "replace"]
