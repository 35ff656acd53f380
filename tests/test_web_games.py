"""Gin Rummy, Sevens and Blind Auction over the websockets: whole games, nothing leaked.

One person plays a whole game against server bots while a watcher looks on.
Afterwards the stored seed and moves are replayed with a separate engine and
every message either socket got is compared with the truth at its move: the
seat's view is the engine's view, the watcher gets no hand, and no message
names a card the receiver may not know (the check of the Spades test, with each
game's idea of hidden: Gin the other hands except cards known to be there, and
the stock; Sevens the other hands). Blind Auction hides no card name (every
seat's unshown cards are public as a set) but a choice and an order, so it is
checked by changing them: swapping another seat's sealed bid for any other
card it could have bid, or reordering the prizes still face down, must leave
every view and every announced event exactly as sent.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardrl.envs import cards
from cardrl.envs.games import get_game
from cardrl.envs.gin_rummy.actions import DRAW_STOCK, TAKE_DISCARD, action_card, is_knock
from cardrl.web.adapters import adapter_for
from tests import test_web_protocol as proto

NAMES = {cards.name(c) for c in range(cards.NUM_CARDS)}
Client = proto.Client
server = proto.server  # the protocol tests' fixture: an app on a fresh database, and its client


def tokens(x) -> set[str]:
    """Every card name in a message, also inside phrases like 'discard QS' or 'QS/2'."""
    return {t for s in proto._strings(x) for t in s.replace("/", " ").split() if t in NAMES}


# ------------------------------------------------------------- playing a game
def play(http, game: str, preset: str, rules: dict, seat: int, bot: str, choose, seed: int):
    """A whole game: the person at ``seat``, bots elsewhere, a watcher joined from the start.

    Returns the table id, the person and the watcher (their ``seen`` holds every
    message) and the number of moves the person made.
    """
    g = get_game(game)
    n = g.num_players(g.get_rules(preset, **rules))
    rng = np.random.default_rng(seed)
    person, watcher = Client(http, f"pat{seed}"), Client(http, f"wes{seed}")
    seats = ["me" if i == seat else f"bot:{bot}" for i in range(n)]
    table = person.post("/api/tables", {"game": game, "preset": preset, "rules": rules,
                                        "seats": seats})["table"]
    for c in (watcher, person):
        c.open().send({"type": "join", "table": table})
    moved_at, moves = -1, 0
    while True:
        m = person.ws.receive_json()
        person.seen.append(m)
        assert m["type"] == "table", m
        if m["status"] == "finished":
            break
        if m["legal"] and m["ply"] > moved_at:
            action = choose(m, rng)
            person.send({"type": "move", "table": table, "action": action, "ply": m["ply"]})
            moved_at, moves = m["ply"], moves + 1
    person.drain()
    watcher.drain()
    return table, person, watcher, moves


def replay(app, table: int):
    """The stored row and the true state after every move (index = ply)."""
    row = app.state.lobby.store.table(table)
    g = get_game(row["game"])
    state = g.new_state(g.get_rules(row["preset"], **row["rules"]), row["seed"])
    states = [state.clone()]
    for _seat, action in row["moves"]:
        state.apply(action)
        states.append(state.clone())
    return row, states


def check_messages(row, states, receivers, hidden, event_cards, strip=lambda m: m) -> int:
    """The Spades no-leak checks for any game: ``hidden(state, seat)`` are the names the
    seat (None: a watcher) may not see; ``event_cards(before, after, seat, action)``
    the names a move's event may show. Returns the number of messages checked."""
    adapter = adapter_for(row["game"])
    checked = 0
    for seat, client in receivers:
        for m in client.seen:
            state = states[m["ply"]]
            assert m["seat"] == seat
            if seat is None:
                assert m["view"] == adapter.spectator_view(state) and m["legal"] == []
                assert m["view"]["hand"] == []
            else:
                assert m["view"] == state.view(seat).to_dict()
                assert [a for a, _ in m["legal"]] == (
                    state.legal_actions() if state.current_player == seat else [])
            body = strip({k: v for k, v in m.items() if k != "event"})
            leaked = tokens(body) & hidden(state, seat)
            assert not leaked, (seat, m["ply"], leaked)
            if m["event"] is not None:
                mover, action = row["moves"][m["ply"] - 1]
                assert m["event"]["seat"] == mover
                allowed = event_cards(states[m["ply"] - 1], state, mover, action)
                assert tokens(m["event"]) <= allowed, (seat, m["ply"], m["event"], allowed)
            checked += 1
        # every move made while the client followed the table was announced to it, once
        plies = [m["ply"] for m in client.seen if m["event"] is not None]
        assert plies == list(range(client.seen[0]["ply"] + 1, len(row["moves"]) + 1))
    return checked


def others(state, seat):
    return [s for s in range(state.num_players) if s != seat]


# ------------------------------------------------------------------ Gin Rummy
def gin_hidden(state, seat) -> set[str]:
    """The other hands, less the cards seen taken from the pile and still held; the stock."""
    out = {c for s in others(state, seat) for c in state.hands[s] if c not in state.known[s]}
    return set(cards.names(sorted(out | set(state.stock))))


def gin_event_cards(before, after, seat, action) -> set[str]:
    if action == DRAW_STOCK:
        return set()  # which card came off the stock is secret
    if action == TAKE_DISCARD:
        return {cards.name(before.pile[-1])}
    if is_knock(action):  # the knocker lays the whole hand down
        return set(cards.names(before.hands[seat]))
    return {cards.name(action_card(action))}


def knocker_deadwood(before, after, seat, action) -> list[str]:
    """The truth: the knocker's final cards outside the melds the hand was scored with."""
    melded = {c for meld in after.results[-1].knocker_melds for c in meld}
    return cards.names(sorted(c for c in before.hands[seat]
                              if c != action_card(action) and c not in melded))


def gin_strip(m: dict) -> dict:
    """The previous hand's summary names cards of a finished hand (possibly redealt since):
    it is the engine's public result, compared whole with the engine's view above (and the
    game-over list of every hand's summary with the engine's results)."""
    m = {k: v for k, v in m.items() if k != "hands"}
    if m["view"] is None:
        return m
    return {**m, "view": {k: v for k, v in m["view"].items() if k != "last_hand"}}


def gin_choose(m, rng):
    """Knock whenever allowed (so hands end by knocks), otherwise any legal move."""
    knocks = [a for a, _ in m["legal"] if is_knock(a)]
    legal = knocks or [a for a, _ in m["legal"]]
    return int(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("preset, rules, seat", [
    ("seed", {"num_players": 3, "max_hands": 2}, 1),
    ("standard", {"max_hands": 2}, 0),
])
def test_gin_rummy_whole_game_with_bots_leaks_no_hidden_card(server, preset, rules, seat):
    app, http = server
    table, person, watcher, moves = play(http, "gin_rummy", preset, rules, seat,
                                         "gin_rummy/expert", gin_choose, seed=seat + 3)
    row, states = replay(app, table)
    truth = states[-1]
    assert truth.is_over and row["status"] == "finished"
    assert len(truth.results) == 2 or max(truth.scores) >= truth.rules.target
    # the deal is random (the lobby draws each table's seed): the person has the first turn
    # of the first hand (seed, seat 1) or the second (standard, after an expert that
    # knocks at once only with a made hand), but a bot's knock may end a hand before the
    # person's next turn
    assert moves >= 2 and person.seen[-1]["view"]["winners"] == list(truth.winners)
    seen_kinds = {m["event"]["kind"] for m in watcher.seen if m["event"]}
    assert {"draw", "discard"} <= seen_kinds
    hand_ends = [m for m in watcher.seen if m["event"] and m["event"].get("hand_over")]
    # every hand's end is announced, at its ply: those after the watcher's first message (the
    # table starts when it is made, so a bot that knocks at once may end the first hand
    # before the watcher's join arrives)
    ended = [p for p in range(watcher.seen[0]["ply"] + 1, len(states))
             if states[p].hand_number != states[p - 1].hand_number or states[p].is_over]
    assert [m["ply"] for m in hand_ends] == ended and ended
    for m in hand_ends:  # a knock shows the knocker's deadwood, truthfully; a dead hand none
        seat_, action = row["moves"][m["ply"] - 1]
        if is_knock(action):
            assert m["event"]["knocker_deadwood"] == knocker_deadwood(
                states[m["ply"] - 1], states[m["ply"]], seat_, action)
        else:
            assert "knocker_deadwood" not in m["event"]
    assert person.seen[-1]["hands"] == [r.to_dict() for r in truth.results]
    stock_draws = [m["event"] for m in watcher.seen if m["event"]
                   and m["event"].get("source") == "stock"]
    assert stock_draws and all(set(e) == {"seat", "kind", "source"} for e in stock_draws)
    n = check_messages(row, states, [(seat, person), (None, watcher)], gin_hidden,
                       gin_event_cards, gin_strip)
    assert n == len(person.seen) + len(watcher.seen)


# --------------------------------------------------------------------- Sevens
def sevens_hidden(state, seat) -> set[str]:
    return {cards.name(c) for s in others(state, seat) for c in state.hands[s]}


def sevens_event_cards(before, after, seat, action) -> set[str]:
    return {cards.name(action >> 1)}


def sevens_choose(m, rng):
    legal = [a for a, _ in m["legal"]]
    seconds = [a for a in legal if a & 1]  # play a second value when there is one, sometimes
    return int(seconds[0] if seconds and rng.random() < 0.5 else legal[rng.integers(len(legal))])


def test_sevens_whole_game_with_bots_leaks_no_hidden_card(server):
    app, http = server
    table, person, watcher, moves = play(http, "sevens", "random", {"num_players": 4}, 2,
                                         "sevens/greedy", sevens_choose, seed=5)
    row, states = replay(app, table)
    truth = states[-1]
    assert truth.is_over and moves == truth.rules.hand_size
    events = [m["event"] for m in watcher.seen if m["event"]]
    first = watcher.seen[0]["ply"]  # the bots before the person may have played already
    for e, (seat, card, value) in zip(events, truth.plays[first:], strict=True):
        assert (e["seat"], e["card"], e["value"]) == (seat, cards.name(card), value)
    assert first <= 2 and sum(e["points"] for e in events if e["seat"] == 2) == truth.scores[2]
    assert events[-1]["total"] == truth.total
    n = check_messages(row, states, [(2, person), (None, watcher)], sevens_hidden,
                       sevens_event_cards)
    assert n == len(person.seen) + len(watcher.seen)


# -------------------------------------------------------------- Blind Auction
def swapped_bid(state, seat: int, card: int):
    """``state`` with seat's sealed bid this round replaced by ``card`` (a rank it still holds)."""
    other = state.clone()
    old = other.pending[seat]
    other.hands[seat] = sorted([r for r in other.hands[seat] if r != card] + [old])
    other.pending[seat] = card
    return other


def reordered_prizes(state, start: int):
    """``state`` with the prize deck from ``start`` on in reverse order."""
    other = state.clone()
    other.prizes[start:] = other.prizes[start:][::-1]
    return other


def ba_seen_as(adapter, state, seat):
    return adapter.spectator_view(state) if seat is None else state.view(seat).to_dict()


def check_sealed(row, states, receivers) -> int:
    """No view or event depends on a bid not yet resolved or on the face-down prize order."""
    adapter = adapter_for("blind_auction")
    swaps = 0
    for seat, client in receivers:
        for m in client.seen:
            state = states[m["ply"]]
            for t in others(state, seat) if seat is not None else range(state.num_players):
                if state.pending[t] is None:
                    continue
                for card in state.hands[t]:
                    assert ba_seen_as(adapter, swapped_bid(state, t, card), seat) == m["view"]
                    swaps += 1
            assert ba_seen_as(adapter, reordered_prizes(state, state.round), seat) == m["view"]
            if m["event"] is None:
                continue
            before = states[m["ply"] - 1]
            mover, action = row["moves"][m["ply"] - 1]
            if "resolved" not in m["event"]:
                assert set(m["event"]) == {"seat", "kind"}
                for alt in before.legal_actions():  # any other bid: the same announcement
                    after = before.clone()
                    after.apply(alt)
                    event = adapter.public_event(adapter.snapshot(before, mover), after, mover,
                                                 alt)
                    assert event == m["event"]
            shuffled = reordered_prizes(before, before.round + 1)  # still face down after it
            shuffled.apply(action)
            assert adapter.public_event(adapter.snapshot(before, mover), shuffled, mover,
                                        action) == m["event"]
    return swaps


def ba_choose(m, rng):
    legal = [a for a, _ in m["legal"]]
    return int(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("preset, rules, seat", [
    ("2p", {}, 1),
    ("3p", {"tie_rule": "carry"}, 0),
])
def test_blind_auction_whole_game_keeps_bids_sealed_until_the_round_resolves(
        server, preset, rules, seat):
    app, http = server
    table, person, watcher, moves = play(http, "blind_auction", preset, rules, seat, "random",
                                         ba_choose, seed=7 + seat)
    row, states = replay(app, table)
    truth = states[-1]
    assert truth.is_over and moves == truth.num_rounds
    resolved = [m["event"]["resolved"] for m in watcher.seen
                if m["event"] and "resolved" in m["event"]]
    assert resolved == [r.to_dict() for r in truth.rounds]  # every round revealed, in order
    n = check_messages(row, states, [(seat, person), (None, watcher)], lambda s, x: set(),
                       lambda b, a, s, x: {c for r in a.rounds[len(b.rounds):]
                                           for c in r.to_dict()["bids"] + [r.to_dict()["prize"]]
                                           + r.to_dict()["taken"]})
    assert n == len(person.seen) + len(watcher.seen)
    assert check_sealed(row, states, [(seat, person), (None, watcher)]) > 0
