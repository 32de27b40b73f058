"""More English ways of saying each action, merged into `homeagent.intent.phrases`.

Same format as `phrases.TEMPLATES` (`{key:pool}`, `{key=a|b}`, a trailing `## key=value`),
English only. `POOLS` adds English values to a shared pool (or starts a pool of its own);
`NONE` adds what is no action (small talk the model answers in words).

The book is written by kind of action: commands in many registers (terse, slang, object
first, a past-tense report of what was done), and for every read action the questions a
household asks about its records (the last time, totals over a period, who has something,
whether a state is on, progress, whether something was already done or written). Those
questions name their domain and never ask to change anything; the write templates never
ask about records. NONE is talk that mentions household things but asks for nothing.
"""

from __future__ import annotations

POOLS: dict[str, tuple[str, ...]] = {
    # Shared pools of phrases.py: more English values.
    "chore": ("take out the trash", "pay the rent", "call the plumber", "return the library books",
              "renew my passport", "mow the lawn", "call the bank", "sign the school permission slip",
              "clean the gutters", "book the car service", "buy a present for Anna", "cancel the gym membership"),
    "event": ("soccer practice", "haircut", "vet appointment", "book club", "date night",
              "doctor's appointment", "coffee with Lisa", "school play", "flight to Denver"),
    "item": ("butter", "cheese", "dish soap", "paper towels", "orange juice", "chicken breast", "cereal",
             "onions", "diapers", "cat food", "peanut butter", "trash bags"),
    "habit": ("stretching", "practicing guitar", "cold showers", "studying Spanish", "going to bed early",
              "walking after dinner", "no sugar"),
    "money": ("$15", "45 dollars", "$120", "8 bucks", "$3.50", "60 euros", "250 yuan"),
    "person": ("Grandma", "Jake", "my sister", "Emma", "Dad", "Priya", "our neighbor Bob"),
    "food": ("a burger and fries", "leftover pasta", "a bowl of cereal", "sushi", "a turkey wrap",
             "a banana", "two slices of pizza", "a smoothie", "chicken curry and rice", "a bagel"),
    "medicine": ("my allergy pill", "antibiotics", "my iron supplement", "paracetamol", "my inhaler",
                 "cough syrup", "fish oil"),
    "place": ("the farmers market", "the gym", "the library", "Aunt May's", "the zoo", "Costco",
              "the lake", "downtown"),
    "plant": ("the monstera", "the succulents", "the roses", "the peace lily", "the herbs", "the lawn"),
    "pet": ("Buddy", "Bella", "the puppy", "the rabbit", "Whiskers"),
    "book": ("Project Hail Mary", "The Midnight Library", "Educated", "1984"),
    "movie": ("Barbie", "The Bear", "Interstellar", "Stranger Things", "Spirited Away"),
    "note": ("the plumber's number is 555-0182", "the gate code is 4471", "school closes early on Fridays",
             "the water shutoff valve is behind the washer", "the bike lock combination is 3391"),
    "thing": ("hedge trimmer", "projector", "board game", "car jack", "sleeping bag", "suitcase", "stroller"),
    "stuff": ("first aid kit", "light bulbs", "screwdriver", "winter coats", "birth certificates",
              "flashlight", "wrapping paper", "paint"),
    "location": ("the hall closet", "the attic", "the basement", "the top shelf", "under the sink",
                 "the junk drawer", "the shed"),
    "title": ("wifi", "recipes", "car", "garden", "school", "insurance"),
    "goal": ("save $5000", "get down to 70 kg", "do 100 push-ups", "finish my novel", "walk 1000 miles"),
    "mood": ("exhausted", "calm", "grumpy", "excited", "sad", "overwhelmed", "content", "lonely"),
    "topic": ("the library opening hours", "cheap flights to Lisbon", "the best robot vacuum",
              "a good lasagna recipe", "reviews of the new Thai place"),
    "idea": ("a chore chart with stickers for the kids", "a family movie night every Friday",
             "turning the garage into a gym", "a swap shelf for toys"),
    "dish": ("lasagna", "beef stew", "lemon cake", "veggie stir-fry", "mac and cheese"),
    "subject": ("French", "guitar", "statistics", "Japanese", "drawing"),
    "memo": ("back by 6", "pizza in the fridge", "don't let the cat out", "the plumber comes at 10",
             "I took the car"),
    "wish": ("a standing desk", "an air fryer", "new running shoes", "a telescope"),
    "countdown": ("Mom's birthday", "the beach trip", "graduation", "moving day", "Halloween"),
    "dream": ("I was lost in a huge mall", "my teeth fell out", "we lived by the sea",
              "I could breathe underwater"),
    "diary": ("Emma lost her first tooth", "it rained all day and we stayed in",
              "I finally fixed the garden fence", "dinner with the neighbors was fun"),
    "address": ("221B Baker Street", "5 Elm Road, Apt 3", "77 Sunset Boulevard"),
    "label": ("home", "the gym", "the dentist", "work"),
    "store": ("Walmart", "Whole Foods", "Best Buy", "the pizza place"),
    "hospital": ("urgent care", "General Hospital", "the walk-in clinic"),
    "reason": ("a sore throat", "a flu shot", "a rash", "an eye exam", "a fever"),
    "metric": ("blood oxygen", "resting heart rate", "cholesterol", "blood glucose"),
    "category": ("groceries", "utilities", "eating out", "kids", "rent"),
    # Pools of this book.
    "period": ("today", "yesterday", "this week", "last week", "this month", "last month"),
    "bill": ("the electricity bill", "the water bill", "the rent", "the phone bill", "the internet bill",
             "the car insurance"),
}

_TASKS: dict[str, tuple[str, ...]] = {
    "create_task": (
        "need to {content:chore} {due:when}", "gotta {content:chore} {due:when}, note it",
        "to-do: {content:chore}", "todo {content:chore}", "task: {content:chore} {due:when}",
        "{content:chore} {due:when}, put it on my list", "{content:chore}, add it to my to-dos",
        "stick {content:chore} on the to-do list", "jot down a task: {content:chore}",
        "new task {content:chore} due {due:when}", "I must {content:chore} before {due:when}",
        "make a to-do to {content:chore}", "add to my list: {content:chore}",
        "ping me {due:when} to {content:chore}", "nudge me {due:when} about {content:chore}",
        "set a reminder to {content:chore} {due:when}", "I should {content:chore} {due:when}, keep track of it",
        "urgent: {content:chore} ## priority=high", "top priority, {content:chore} ## priority=high",
        "{content:chore} asap, it's important ## priority=high",
        "low priority task, {content:chore} someday ## priority=low",
        "whenever, {content:chore}, no rush ## priority=low",
        "remind me {repeat=every week|every month|every Sunday|every morning} to {content:chore}",
        "{content:chore} {repeat=every Friday|every other week|on the first of every month}, as a recurring task",
    ),
    "complete_task": (
        "{content:chore}, done", "{content:chore} is finished", "finished {content:chore}",
        "tick off {content:chore}", "scratch {content:chore} off my to-do list",
        "{content:chore}: sorted", "that's {content:chore} taken care of",
        "I've done {content:chore}, tick it off", "task {id=1|6|9} is done",
        "close task {id=1|6|9}", "complete task {id=3|4|11}", "finally got {content:chore} done",
        "mark the {content:chore} task complete", "{content:chore} can come off the list, it's done",
        "paid {content:bill}, tick it off", "{content:bill} is paid, mark it done",
        "knocked out {content:chore} today",
    ),
    "list_tasks": (
        "did I already {query:chore}", "is {query:chore} on my to-do list", "have I got a task to {query:chore}",
        "is there a task for {query:chore}", "when is {query:chore} due", "what's due {from=today|tomorrow|this week}",
        "how many tasks do I have left ## status=open", "how many tasks did I finish this week ## status=done, from=this week",
        "which to-dos are still open ## status=open", "any overdue tasks", "anything urgent on my to-do list ## priority=high",
        "what are my high priority tasks ## priority=high", "is anything on my plate today ## from=today",
        "what's left on my list", "what did I get done last week ## status=done, from=last week",
        "did I finish {query:chore} ## status=done", "have I done {query:chore} yet",
        "what do I need to do {from=tomorrow|this week|next week}", "any to-dos for {from=tomorrow|Friday|the weekend}",
        "what's on my plate", "which tasks are due this week ## from=this week", "my to-do list",
        "to-dos?", "what tasks are left",
    ),
    "update_task": (
        "bump {content:chore} to {due:when}", "{content:chore} can wait until {due:when}",
        "postpone {content:chore} to {due:when}", "shift task {id=2|5|7} to {due:when}",
        "{content:chore} should be due {due:when} instead", "change {content:chore} to low priority ## priority=low",
        "{content:chore} is urgent now, bump its priority ## priority=high",
        "set the deadline for {content:chore} to {due:when}", "rename the task {content:chore} to {new_content:chore}",
        "reopen task {id=2|5|7} ## status=open", "{content:chore} isn't done after all, reopen it ## status=open",
        "delay {content:chore} until {due:when}", "make {content:chore} repeat {repeat=every week|every month}",
    ),
    "delete_task": (
        "scrap {content:chore}", "forget about {content:chore}, delete it", "drop {content:chore} from my to-dos",
        "nix the {content:chore} task", "{content:chore} isn't happening, remove it",
        "take {content:chore} off my list, we don't need it anymore", "erase task {id=3|4|8}",
        "cancel the task to {content:chore}", "remove task number {id=3|4|8}", "kill the {content:chore} to-do",
        "no need to {content:chore} anymore, delete that task",
    ),
}

_EVENTS: dict[str, tuple[str, ...]] = {
    "create_event": (
        "{title:event} {start:when}", "{start:when}: {title:event}", "got {title:event} {start:when}",
        "{title:event} is {start:when}, put it in the calendar", "calendar: {title:event} {start:when}",
        "pencil in {title:event} for {start:when}", "block out {start:when} for {title:event}",
        "set up a {title:event} {start:when}", "we're doing {title:event} {start:when}",
        "new event: {title:event} on {start:when}", "add an appointment, {title:event} {start:when}",
        "put {title:event} in my diary for {start:when}", "{title:event} at {location:place} {start:when}",
        "save the date, {title:event} {start:when}", "{title:event} {start:when} for {duration_minutes=30|45|90} minutes",
        "{title:event} {start:when}, remind me {remind_minutes=15|30|60} minutes before",
        "{title:event} {repeat=every Tuesday|every week|every Monday at 6pm} starting {start:when}",
        "my {title:event} is booked for {start:when}",
    ),
    "list_events": (
        "when is my {query:event}", "when's the {query:event}", "is the {query:event} {from=today|tomorrow|this week}",
        "do I have a {query:event} this week ## from=this week", "have I got anything {from:when}",
        "is there anything on the calendar {from:when}", "what's happening {from=this weekend|next week|tomorrow}",
        "any appointments {from=tomorrow|this week|next week}", "how busy is my week ## from=this week",
        "what time is the {query:event}", "where is the {query:event}", "what's next on my calendar",
        "anything scheduled for {from:when}", "how many meetings do I have this week ## from=this week",
        "what's my schedule like {from:when}", "is {from:when} free", "any plans {from:when}",
        "my calendar {from=today|tomorrow|this week}", "what have I got on next week ## from=next week",
        "when was my last {query:event}",
    ),
    "update_event": (
        "the {title:event} moved to {start:when}", "{title:event} is now {start:when}, update it",
        "shift the {title:event} to {start:when}", "change the {title:event} time to {start:when}",
        "bring the {title:event} forward to {start:when}", "{title:event} got pushed to {start:when}",
        "move event {id=2|4|6} to {start:when}", "change the location of the {title:event} to {location:place}",
        "the {title:event} will be at {location:place} instead", "rename the {title:event} to {new_title:event}",
        "{title:event} has been rescheduled for {start:when}",
    ),
    "delete_event": (
        "{title:event} is cancelled", "{title:event} is off", "scrap the {title:event}",
        "the {title:event} isn't happening, take it off the calendar", "drop the {title:event} from my schedule",
        "call off the {title:event}", "delete event {id=2|4|6}", "remove the {title:event} from my diary",
        "cancel my {title:event}", "we're skipping the {title:event}, delete it",
        "clear the {title:event} off my calendar",
    ),
}

_HABITS: dict[str, tuple[str, ...]] = {
    "create_habit": (
        "new habit: {habit:habit}", "help me stick to {habit:habit}", "I want to start {habit:habit} every day ## frequency=daily",
        "daily habit: {habit:habit} ## frequency=daily", "add {habit:habit} as a weekly habit ## frequency=weekly",
        "{habit:habit} {target=3|4|5} times a week, track it ## frequency=weekly",
        "I'm going to do {habit:habit} daily, track it for me ## frequency=daily",
        "set up a habit for {habit:habit}", "build a {habit:habit} habit", "habit tracker: add {habit:habit}",
        "I'd like to get into {habit:habit}, make it a habit", "start a streak for {habit:habit}",
        "track {habit:habit} for me", "{habit:habit} every day from now on ## frequency=daily",
    ),
    "check_in_habit": (
        "{habit:habit} done", "{habit:habit} done today", "I did {habit:habit} this morning",
        "just finished {habit:habit}", "ticked off {habit:habit} for today", "{habit:habit} ✓",
        "I've done {habit:habit} today, check it in", "check off {habit:habit}", "mark {habit:habit} done for today",
        "got my {habit:habit} in today", "{habit:habit}: done for the day", "completed {habit:habit}",
        "check in {habit:habit} for yesterday ## date=yesterday", "I did {habit:habit} yesterday, log it ## date=yesterday",
        "habit check-in: {habit:habit}",
    ),
    "list_habits": (
        "did I do my {query:habit} today", "have I done {query:habit} today", "what's my {query:habit} streak",
        "how long is my {query:habit} streak", "how many days in a row have I done {query:habit}",
        "which habits are left for today", "which habits haven't I checked in today", "how are my streaks",
        "what's my longest streak", "am I keeping up with {query:habit}", "have I kept up my habits this week",
        "my habit streaks", "how's my {query:habit} habit going", "did I skip {query:habit} yesterday",
        "what habits am I building", "any habits I missed today",
    ),
    "update_habit": (
        "make {habit:habit} a weekly habit ## frequency=weekly", "{habit:habit} should be daily now ## frequency=daily",
        "put {habit:habit} on hold ## status=paused", "archive the {habit:habit} habit ## status=archived",
        "restart my {habit:habit} habit ## status=active", "bump {habit:habit} to {target=4|5|6} times a week ## frequency=weekly",
        "rename {habit:habit} to {new_name:habit}", "remind me about {habit:habit} at {remind_at=7am|8pm|9:30pm} every day",
        "lower my {habit:habit} target to {target=2|3} a week ## frequency=weekly",
        "take a break from {habit:habit} for now ## status=paused",
    ),
    "delete_habit": (
        "I quit {habit:habit}, delete the habit", "drop the {habit:habit} habit", "scrap {habit:habit} from my habits",
        "get rid of my {habit:habit} habit", "no more {habit:habit} tracking, delete it", "delete habit {id=1|3|5}",
        "remove {habit:habit} from the habit tracker", "stop the {habit:habit} habit for good, remove it",
        "erase the {habit:habit} habit",
    ),
}

_NOTES: dict[str, tuple[str, ...]] = {
    "create_note": (
        "note: {content:note}", "quick note, {content:note}", "for the record, {content:note}",
        "keep a note that {content:note}", "save a note: {content:note}", "memo to self: {content:note}",
        "don't forget that {content:note}, write it down", "add a note: {content:note}",
        "remember this: {content:note}", "FYI {content:note}, note it", "write this down: {content:note}",
        "put it in my notes that {content:note}", "new note titled {title:title}: {content:note}",
        "private note: {content:note} ## private=true", "store this in my notes: {content:note}",
        "{content:note}, make a note of that",
    ),
    "list_notes": (
        "did I write down {query:title}", "have I got a note about {query:title}", "is there a note on {query:title}",
        "what did I note about {query:title}", "any notes about {query:title}", "what's in my {query:title} note",
        "what did I write in my diary {from=yesterday|last week|last night} ## kind=diary",
        "have I written in my diary today ## kind=diary, from=today", "did I write a diary entry yesterday ## kind=diary, from=yesterday",
        "show my diary from last week ## kind=diary, from=last week", "my diary entries this month ## kind=diary, from=this month",
        "how many notes have I made", "what notes did I take {from=today|this week|last month}",
        "what was the note about {query:title}", "look through my notes for {query:title}", "my notes on {query:title}",
        "where did I note the {query:title} stuff",
    ),
    "update_note": (
        "add to my {title:title} note: {append:note}", "append {append:item} to the {title:title} note",
        "change the {title:title} note to {content:note}", "edit my {title:title} note, it should say {content:note}",
        "put {append:item} in the {title:title} note too", "update note {id=3|12} to say {content:note}",
        "rename the {title:title} note to {new_title:title}", "the {title:title} note needs one more line: {append:note}",
        "also add {append:item} to my {title:title} note",
    ),
    "delete_note": (
        "trash the {title:title} note", "get rid of my {title:title} note", "scrap the note about {title:title}",
        "the {title:title} note is out of date, delete it", "erase note {id=3|12}", "remove the {title:title} note",
        "bin my note on {title:title}", "delete my notes about {title:title}",
    ),
    "write_diary": (
        "diary: {content:diary}", "today's diary: {content:diary}", "journal entry: {content:diary}",
        "add to my journal: {content:diary}", "put in my diary that {content:diary}",
        "for my diary, {content:diary}", "journal: {content:diary}", "log in my diary: {content:diary}",
        "diary for yesterday: {content:diary} ## date=yesterday", "write today's journal: {content:diary}",
        "my diary today, {content:diary}", "new diary entry, {content:diary}",
    ),
}

TEMPLATES: dict[str, tuple[str, ...]] = {**_TASKS, **_EVENTS, **_HABITS, **_NOTES}

NONE: tuple[str, ...] = ()
