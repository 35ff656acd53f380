"""The browser tests: people sign up and play whole games of all four games by
clicking, in headless Chromium (Debian's package, which ``make test`` installs),
on a phone (390x844) and on a laptop (1366x768). One server and one browser
serve every test; each viewport is its own page and account. Screenshots of
each game's end (and a few moments on the way) go to ``runs/screenshots/``.

What is checked is what a person needs of the tables:

* signing in and up (Enter does what the form shown says; no "Sign out" on the
  sign-in page), the rules help from the lobby and the table, the bots in
  words, the seats a table's rules have, only bots that can play the rules;
* Spades: the hand sorted by suit in alternating colours, high to low (A3.4,
  A3.5); bids, tricks and scores always on screen (A3.1, A3.2); each finished
  trick held until the player clicks on (A3.3); only legal cards clickable;
  the hand summary's arithmetic (A3.6, S1-S4.1); on the laptop the whole hand
  on screen and undimmed while bidding;
* Gin Rummy: the hand split into valid melds with the least deadwood (checked
  against the engine's meld code), the knock button exactly when a knock is
  legal, the summary's wording, the knocker's deadwood and runs in rank order;
* Sevens: the playable cards are exactly those the colour/suit rule allows, a
  two-valued card asks for its value, the total moves by the value chosen, the
  plays listed in the order they happened;
* Blind Auction: every bid revealed with the others' when the round resolves;
* game over: the final standings, every hand's result, and "play again" with
  the same seats; leaving a table while bot moves are being shown is no error.
"""

from __future__ import annotations

import re
import time
import urllib.request
from pathlib import Path

import pytest

from cardrl.envs import cards
from cardrl.envs.gin_rummy.melds import deadwood, deadwood_after_discards, mask_of
from cardrl.web.testing import ServerProcess

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 768}
SHOTS = Path(__file__).resolve().parents[1] / "runs" / "screenshots"
RED = set("HD")
ORDER = "23456789TJQKA"
RANK_LOW = "A23456789TJQK"
TAP_X = 4  # px from a card's left edge: inside the strip a fanned hand leaves in view
LIMIT = 90.0  # seconds a game may take: a guard against a hang, not a speed check (a
# seed-rules Gin hand runs up to ~21 turns of the person, ~1 s each when quiet)


# ------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with ServerProcess(tmp_path_factory.mktemp("web") / "web.db") as s:
        yield s


class Page:
    """A page of one viewport, its account, and every script error it raised."""

    def __init__(self, browser, server, size: dict, name: str) -> None:
        self.server, self.size, self.name = server, size, name
        self.kind = "phone" if size is PHONE else "laptop"
        self.page = browser.new_page(viewport=size)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def goto(self, hash_: str = "#/", pace: int = 0) -> None:
        self.page.goto(f"{self.server.url}/?pace={pace}{hash_}")

    def sign_up(self) -> None:
        self.goto()
        p = self.page
        p.click("#tab-signup")
        p.fill("input[name=name]", self.name)
        p.fill("input[name=password]", "correct horse")
        p.press("input[name=password]", "Enter")  # Enter signs up in the sign-up form
        p.wait_for_selector("#quick-go")
        assert p.inner_text("#who") == self.name

    def shoot(self, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SHOTS / f"{self.kind}-{name}.png"))

    def close(self) -> None:
        self.page.close()
        assert self.errors == []


@pytest.fixture()
def phone(browser, server):
    page = Page(browser, server, PHONE, "phoebe")
    page.sign_up()
    yield page
    page.close()


@pytest.fixture()
def laptop(browser, server):
    page = Page(browser, server, LAPTOP, "larry")
    page.sign_up()
    yield page
    page.close()


# ------------------------------------------------------------------ helpers
def names(locator) -> list[str]:
    return [c.get_attribute("data-card") for c in locator.all()]


def tap(card) -> None:
    """Click a card on its left strip, where a person taps a fanned hand (on a phone
    each card of an overlapping hand shows only its left strip). The hand may be drawn
    again between finding the card and measuring it (no box for a moment): measure again."""
    deadline = time.monotonic() + 5
    box = card.bounding_box()
    while box is None and time.monotonic() < deadline:
        box = card.bounding_box()
    assert box is not None, f"{card} never showed"
    card.click(position={"x": TAP_X, "y": box["height"] / 2})


def all_tappable(page, selector: str) -> bool:
    """Every card the selector finds is the top element at its tap point."""
    return page.eval_on_selector_all(selector, f"""cards => cards.every((c) => {{
        const r = c.getBoundingClientRect();
        return c.contains(document.elementFromPoint(r.left + {TAP_X}, r.top + r.height / 2));
    }})""")


def new_table(p: Page, game: str, bot: str, preset: str | None = None,
              players: int | None = None, length: str | None = None) -> None:
    """Open a table from the lobby's "New table" form: me and bots in every other seat."""
    page = p.page
    p.goto()
    page.wait_for_selector("#custom-go")
    page.select_option("#custom-game", game)
    if preset:
        page.select_option("#custom-preset", preset)
    if players:
        page.select_option("#custom-players", str(players))
    if length:
        page.select_option("#custom-length", length)
    seats = (players or 0) - 1
    page.wait_for_function(f"""() => {{
        const box = document.querySelector('#custom-form .seats');
        const s = [...document.querySelectorAll('#custom-form .seat-choice')];
        return box.dataset.shown === box.dataset.asked && s.length > 0 &&
            ({seats} < 0 || s.length === {seats}) && s.every(
            (x) => [...x.options].some((o) => o.value === 'bot:{bot}'));
    }}""")
    for select in page.locator("#custom-form .seat-choice").all():
        select.select_option(f"bot:{bot}")
    page.click("#custom-go")
    page.wait_for_selector(".table-head")


def game_over(p: Page, game: str, players: int) -> None:
    """The game-over screen: standings, the hands, play again; a screenshot."""
    page = p.page
    page.wait_for_selector("#game-over", timeout=10_000)
    rows = page.locator("#game-over .standings tbody tr")
    assert rows.count() == players
    scores = [float(r.locator("td").nth(2).inner_text()) for r in rows.all()]
    assert scores == sorted(scores, reverse=True)
    assert "You" in page.locator("#game-over .standings").inner_text()
    assert page.locator("#game-over .hands tbody tr").count() >= 1
    assert page.locator("#play-again").is_visible() and page.locator("#to-lobby").is_visible()
    p.shoot(f"{game}-over")


# ------------------------------------------------------------------- Spades
def suit(card: str) -> str:
    return "S" if card in ("BJ", "LJ") else card[-1]


def power(card: str) -> int:
    return {"LJ": 13, "BJ": 14}.get(card, ORDER.index(card[:-1].replace("10", "T")))


def check_sorted(hand: list[str]) -> None:
    """One run per suit, high to low, colours alternating as far as the suits held allow."""
    runs = []
    for c in hand:
        if not runs or suit(runs[-1][-1]) != suit(c):
            runs.append([c])
        else:
            runs[-1].append(c)
    suits = [suit(r[0]) for r in runs]
    assert len(suits) == len(set(suits)), f"a suit is split: {hand}"
    for r in runs:
        assert [power(c) for c in r] == sorted((power(c) for c in r), reverse=True), hand
    red = sum(s in RED for s in suits)
    black = len(suits) - red
    same = sum((a in RED) == (b in RED) for a, b in zip(suits, suits[1:], strict=False))
    assert same == max(0, abs(red - black) - 1), f"colours do not alternate: {hand}"


def hand_points(bid: int, tricks: int) -> int:
    """Killer preset: S1-S3 and nil S4, S4.1 (docs/rules.md section 1)."""
    if bid == 0:
        return 100 if tricks == 0 else -100
    if tricks < bid:
        return -10 * bid
    return 10 * bid - 10 * (tricks - bid)


def on_screen(page, selector: str) -> bool:
    """Every element the selector finds lies wholly inside the viewport."""
    return page.eval_on_selector_all(selector, """els => els.length > 0 && els.every((e) => {
        const r = e.getBoundingClientRect();
        return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
    })""")


def play_spades(p: Page) -> None:
    page = p.page
    new_table(p, "spades", "spades/count-bid", preset="killer", length="1")
    page.wait_for_selector(".scoreboard")
    head = page.inner_text(".table-head")
    assert "one hand" in head and "250" not in head  # a one-hand table claims no target
    names_ = page.locator(".scoreboard thead th").all_inner_texts()[1:]
    assert names_[0].startswith("You") and all(n.startswith("Bot") for n in names_[1:])
    check_sorted(names(page.locator(".hand .card")))

    my_bid, cards_played, pauses = None, 0, 0
    deadline = time.monotonic() + LIMIT
    while time.monotonic() < deadline:
        assert page.locator(".scoreboard td.score").count() == 4  # A3.2, always
        assert page.locator(".scoreboard td.bid").count() == 4  # A3.1, always
        if page.locator("#next-hand").is_visible():
            break
        if page.locator("#next-trick").is_visible():
            # A3.3: the whole trick stays on the table, winner marked, until the click
            assert page.locator(".trick .card").count() == 4
            assert page.locator(".trick .card.winner").count() == 1
            if pauses == 0:
                p.shoot("spades-trick")
            page.click("#next-trick")
            pauses += 1
            continue
        bids = page.locator(".bid-button:not([disabled])")
        if bids.count():
            # the whole hand in view and undimmed while bidding (every card counts)
            assert on_screen(page, ".hand .card"), "the hand is off screen while bidding"
            assert on_screen(page, ".bid-button")
            assert page.locator(".hand .card.dim").count() == 0
            p.shoot("spades-bid")
            choice = bids.nth(min(3, bids.count() - 1))
            my_bid = int(choice.get_attribute("data-bid"))
            choice.click()
            page.wait_for_selector(".bids", state="detached")
            continue
        legal = page.locator(".hand button.card.legal")
        if legal.count():
            held = names(page.locator(".hand .card"))
            playable = names(legal)
            if page.locator(".trick .card").count():
                lead = suit(page.locator(".trick .card").first.get_attribute("data-card"))
                if any(suit(c) == lead for c in held):  # must follow suit (P3)
                    assert all(suit(c) == lead for c in playable), (lead, playable)
            # the other cards are not buttons: nothing to click
            assert page.locator(".hand div.card").count() == len(held) - len(playable)
            tap(legal.first)
            cards_played += 1
            page.wait_for_function("() => !document.querySelector('.hand button.card.legal')")
            continue
        page.wait_for_timeout(10)

    assert page.locator("#next-hand").is_visible(), "no hand summary within the time limit"
    p.shoot("spades-summary")
    assert my_bid is not None and cards_played == 13 and pauses == 13
    rows = [r.locator("td").all_inner_texts() for r in page.locator(".summary tbody tr").all()]
    assert len(rows) == 4 and rows[0][0] == "You"
    bids_ = [0 if r[1] == "Nil" else int(r[1]) for r in rows]
    tricks = [int(r[2]) for r in rows]
    assert bids_[0] == my_bid and sum(tricks) == 13
    for bid, taken, row in zip(bids_, tricks, rows, strict=True):
        assert int(row[3]) == hand_points(bid, taken)
        assert int(row[4]) == hand_points(bid, taken)  # the first hand: total = hand
    page.click("#next-hand")
    game_over(p, "spades", 4)


# ---------------------------------------------------------------- Gin Rummy
def is_meld(group: list[str]) -> bool:
    """A set of 3-4 of a rank, or a run of 3+ in one suit with the ace low (docs/rules.md 2)."""
    ranks = [RANK_LOW.index(c[:-1].replace("10", "T")) for c in group]
    suits = {c[-1] for c in group}
    if len(set(ranks)) == 1:
        return len(group) in (3, 4)
    return len(suits) == 1 and len(group) >= 3 and sorted(ranks) == list(
        range(min(ranks), min(ranks) + len(group)))


def card_points(name: str) -> int:
    return min(RANK_LOW.index(name[:-1].replace("10", "T")) + 1, 10)


def low_rank(name: str) -> int:
    return RANK_LOW.index(name[:-1].replace("10", "T"))


HEADLINE = re.compile(r"^(The stock ran out: a dead hand, nobody scores\.|"
                      r"(You|Bot \d) (knocked|went gin) and (score|scores) \d+\.|"
                      r"(You knocked and were|Bot \d knocked and was) undercut: "
                      r"(you score|Bot \d scores) \d+\.)$")


def play_gin(p: Page) -> None:
    page = p.page
    new_table(p, "gin_rummy", "gin_rummy/simple", preset="seed", players=3, length="1")
    page.wait_for_selector(".gt")
    turns, deadline = 0, time.monotonic() + LIMIT
    while time.monotonic() < deadline:
        if page.locator("#next-hand").is_visible():
            break
        if turns == 0 and page.locator("#game-over").count():
            # at pace 0 a bot can knock on its first turn, before this page joined: the
            # page then opens on the game over, with no hand to check; deal another
            new_table(p, "gin_rummy", "gin_rummy/simple", preset="seed", players=3,
                      length="1")
            page.wait_for_selector(".gt")
            continue
        held = names(page.locator(".gt-groups .card"))
        stock = page.locator("button#gin-stock")
        discard = page.locator(".gt-groups button.card.legal")
        if not (stock.count() or discard.count()):
            page.wait_for_timeout(10)
            continue
        # the hand as shown: valid melds, and the deadwood the engine counts
        groups = [names(g.locator(".card")) for g in page.locator(".gt-meld").all()]
        assert all(is_meld(g) for g in groups), groups
        assert sorted([c for g in groups for c in g]
                      + names(page.locator(".gt-deadwood .card"))) == sorted(held)
        mask = mask_of(cards.parse_many(held))
        shown = int(page.inner_text("#gin-deadwood").split()[-1])
        assert shown == deadwood(mask) == sum(
            card_points(c) for c in names(page.locator(".gt-deadwood .card")))
        assert all_tappable(page, ".gt-groups button.card.legal"), held
        knock = page.locator("#gin-knock")
        if stock.count():
            assert len(held) == 10 and knock.count() == 0
            assert page.locator("#gin-upcard.legal").count() == 1  # or take the up card
            if turns == 1:
                p.shoot("gin-draw")
            stock.click()
            page.wait_for_selector("button#gin-stock", state="detached")
            continue
        assert len(held) == 11
        assert knock.count() == (1 if deadwood_after_discards(mask, 10) else 0)
        if knock.count():
            knock.click()
            assert all_tappable(page, ".gt-groups.knocking button.card.legal"), held
            tap(page.locator(".gt-groups.knocking button.card.legal").first)
        else:  # throw the highest deadwood card
            options = names(discard)
            worst = max(options, key=lambda c: (c in names(page.locator(".gt-deadwood .card")),
                                                card_points(c)))
            tap(page.locator(f".gt-groups button.card.legal[data-card='{worst}']"))
        turns += 1
        page.wait_for_function("() => !document.querySelector('.gt-groups button.card.legal')")
    assert page.locator("#next-hand").is_visible(), "no hand ended within the time limit"
    summary = page.locator(".gt-summary")
    assert summary.locator("tbody tr").count() == 3
    text = page.inner_text("#gin-headline")
    assert HEADLINE.match(text), text
    # the finished hand stays under its summary: the next deal's header comes after
    assert "hand 1" in page.inner_text(".table-head")
    for group in summary.locator(".gt-group").all():  # runs read A 2 3 4, not 2 3 4 A
        g = names(group.locator(".mini"))
        if len({c[-1] for c in g}) == 1:
            assert [low_rank(c) for c in g] == sorted(low_rank(c) for c in g), g
    if "Bot" in text.split(" knocked")[0] and "knocked" in text:
        # a bot knocked: its whole hand is laid down, the deadwood cards too
        knocker_row = [r for r in summary.locator("tbody tr").all()
                       if "(knocked)" in r.inner_text()][0]
        count = int(knocker_row.locator("td").nth(1).inner_text())
        shown_dw = names(summary.locator(".gt-knocker .dw .mini"))
        assert sum(card_points(c) for c in shown_dw) == count, (shown_dw, count)
    p.shoot("gin-summary")
    page.click("#next-hand")
    game_over(p, "gin_rummy", 3)


# ------------------------------------------------------------------- Sevens
def sevens_playable(hand: list[str], last: str) -> set[str]:
    """docs/rules.md section 3, from card names: another colour if held, else another suit."""
    other_colour = [c for c in hand if (c[-1] in RED) != (last[-1] in RED)]
    other_suit = [c for c in hand if c[-1] != last[-1]]
    return set(other_colour or other_suit or hand)


def play_sevens(p: Page) -> None:
    page = p.page
    new_table(p, "sevens", "sevens/greedy", preset="random", players=4)
    page.wait_for_selector(".gt-value")
    assert page.locator(".gt-value").count() == 13  # the parameters, always in view
    plays, two_values, deadline = 0, 0, time.monotonic() + LIMIT
    while time.monotonic() < deadline and not page.locator("#game-over").count():
        legal = page.locator(".gt-hand button.card.legal")
        if not legal.count():
            page.wait_for_timeout(10)
            continue
        held = names(page.locator(".gt-hand .card"))
        last = page.locator(".sevens-felt .card.up").get_attribute("data-card")
        assert set(names(legal)) == sevens_playable(held, last), (held, last)
        total = int(page.inner_text("#sevens-total"))
        listed = page.locator(".gt-plays li").all_inner_texts()
        start = int(page.get_attribute(".gt-plays", "start") or 1)
        assert len(listed) <= 12 and start - 1 + len(listed) == 4 * plays  # you lead
        tap(legal.first)
        choice = page.locator(".value-button")
        value_text = None
        if choice.count():  # a symbol with two values: choose the second
            assert choice.count() == 2
            if two_values == 0:
                p.shoot("sevens-choose")
            value_text = (int(choice.nth(1).get_attribute("data-value")),
                          int(choice.nth(1).get_attribute("data-total")))
            words = choice.nth(1).inner_text()
            assert "total" in words and "\u2192" not in words  # words, not arrows
            choice.nth(1).click()
            two_values += 1
        plays += 1
        page.wait_for_function(
            f"() => document.querySelectorAll('.gt-hand .card').length === {len(held) - 1}")
        if value_text is not None:  # the total moved by the value chosen
            value, after = value_text
            assert after == total + value
    assert plays == 12 and page.locator(".gt-hand .card").count() == 0  # 4 players: 12 each
    # the plays in the order they happened: the last twelve, from yours to the last bot's
    listed = page.locator(".gt-plays li").all_inner_texts()
    assert page.get_attribute(".gt-plays", "start") == "37" and len(listed) == 12
    assert listed[0].startswith("You ") and listed[-1].startswith("Bot 4 ")
    game_over(p, "sevens", 4)


# ------------------------------------------------------------ Blind Auction
def play_auction(p: Page, rounds_: int = 5) -> None:
    page = p.page
    new_table(p, "blind_auction", "blind_auction/mirror", preset="2p", length=str(rounds_))
    page.wait_for_selector(".gt")
    rounds, bid, deadline = 0, None, time.monotonic() + LIMIT
    while time.monotonic() < deadline:
        if page.locator("#next-round").is_visible():
            rounds += 1
            [mine, theirs] = names(page.locator(".gt-reveal figure:not(:first-child) .card"))
            assert mine == bid
            assert theirs.endswith("C")  # the second seat bids clubs
            if rounds == 2:
                p.shoot("auction-reveal")
            page.click("#next-round")
            page.wait_for_selector(".summary.gt-summary", state="detached")
            if rounds < rounds_:
                assert page.locator(".gt-rounds tbody tr").count() == rounds
            continue
        if page.locator("#game-over").count():
            break
        legal = page.locator(".gt-hand button.card.legal")
        if not legal.count():
            page.wait_for_timeout(10)
            continue
        assert legal.count() == rounds_ - rounds
        choice = legal.nth(rounds % legal.count())
        bid = choice.get_attribute("data-card")
        choice.click()
        page.wait_for_selector("#next-round")  # the bot bids at once: the round resolves
    assert rounds == rounds_
    game_over(p, "blind_auction", 2)


# -------------------------------------------------------------------- tests
def test_signing_in_and_up_and_the_lobby(browser, server):
    page = browser.new_page(viewport=PHONE)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "/?pace=0")
    page.wait_for_selector("#auth-go")
    assert not page.locator("#signout").is_visible()  # nobody to sign out
    page.fill("input[name=name]", "nobody")
    page.fill("input[name=password]", "long enough")
    page.press("input[name=password]", "Enter")
    page.wait_for_function("() => document.querySelector('.error').textContent !== ''")
    assert "wrong user name or password" in page.inner_text(".error")
    page.click("#tab-signup")
    page.fill("input[name=name]", "sue")
    page.fill("input[name=password]", "long enough")
    page.press("input[name=name]", "Enter")  # Enter in a sign-up field signs up
    page.wait_for_selector("#quick-go")
    assert page.inner_text("#who") == "sue" and page.locator("#signout").is_visible()

    # the rules, reachable from the lobby, for the chosen game and preset
    page.click("#quick-rules")
    help_ = page.inner_text(".rules-help")
    assert "over 250" in help_ and "250 exactly does not end it" in help_
    assert "Cutthroat" in help_ and "bags" in help_
    page.click("#rules-close")
    for game, words in (("gin_rummy", "Original rules: the game of the original assignment"),
                        ("sevens", "divisible by 7"), ("blind_auction", "tie rule")):
        page.select_option("#quick-game", game)
        page.click("#quick-rules")
        assert words in page.inner_text(".rules-help")
        page.click("#rules-close")
    # the bots in words
    page.select_option("#quick-game", "spades")
    page.select_option("#quick-bot", "spades/expert")
    assert "remembers every card" in page.inner_text(".bot-hint")

    # a new table has the seats its rules have, and only bots that can play them
    def seat_menus(seats, game, preset, length=None):
        page.select_option("#custom-game", game)
        page.select_option("#custom-preset", preset)
        if length is not None:
            page.select_option("#custom-length", length)
        page.wait_for_function(f"""() => {{
            const box = document.querySelector('#custom-form .seats');
            const s = [...document.querySelectorAll('#custom-form .seat-choice')];
            return box.dataset.shown === box.dataset.asked && s.length === {seats} &&
                s.every((x) => [...x.options].some((o) => o.value === 'bot:blind_auction/mirror'));
        }}""")
        return [s.locator("option").evaluate_all("os => os.map((o) => o.value)")
                for s in page.locator("#custom-form .seat-choice").all()]

    three = seat_menus(2, "blind_auction", "3p")
    assert "bot:blind_auction/equilibrium" not in three[0]
    two = seat_menus(1, "blind_auction", "2p", "")
    assert "bot:blind_auction/equilibrium" not in two[0]
    small = seat_menus(1, "blind_auction", "2p", "8")
    assert "bot:blind_auction/equilibrium" in small[0]
    seat_menus(2, "blind_auction", "3p")
    page.select_option("#custom-form .seat-choice >> nth=0", "bot:random")
    page.select_option("#custom-form .seat-choice >> nth=1", "bot:random")
    page.click("#custom-go")  # a 3-player table opens: the request matches the seats
    page.wait_for_selector(".gt")
    assert page.locator(".gt-player").count() == 3
    page.click("#table-rules")
    assert "3 players (this table)" in page.inner_text(".rules-help")
    page.click("#rules-close")
    with urllib.request.urlopen(server.url + "/favicon.ico") as res:
        assert res.headers["content-type"].startswith("image/svg")
    page.close()
    assert errors == []


def test_all_four_games_to_the_end_on_a_phone(phone):
    play_spades(phone)
    play_gin(phone)
    play_sevens(phone)
    play_auction(phone)
    # play again: the same seats, a new game
    before = phone.page.locator("#game-over .standings").inner_text()
    phone.page.click("#play-again")
    phone.page.wait_for_function("() => !document.querySelector('#game-over')")
    phone.page.wait_for_selector(".gt-hand button.card.legal")
    boxes = phone.page.locator(".gt-player b").all_inner_texts()
    assert boxes[0].startswith("You") and "Medium" in boxes[1]  # the mirror bot's level
    assert "Bot 2" in before
    assert re.match(r"#/table/\d+$", phone.page.evaluate("location.hash"))


def test_all_four_games_to_the_end_on_a_laptop(laptop):
    # leaving a table while other players' moves are being shown is no error
    laptop.goto("#/", pace=400)
    page = laptop.page
    page.wait_for_selector("#quick-go")
    page.select_option("#quick-game", "spades")
    page.select_option("#quick-fill", "0")
    page.click("#quick-go")
    page.wait_for_selector(".scoreboard")
    page.click(".table-head a")  # back to the lobby mid-bidding of the bots
    page.wait_for_selector("#quick-go")
    page.wait_for_timeout(1500)  # the queued moves would have been shown by now
    assert laptop.errors == []
    play_spades(laptop)
    play_gin(laptop)
    play_sevens(laptop)
    play_auction(laptop)
