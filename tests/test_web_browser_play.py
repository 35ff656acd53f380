"""Browser tests of instant play and of the table on every screen, in headless Chromium
on a phone held upright (390x844), a phone held sideways (844x390) and a laptop
(1366x768); screenshots go to ``runs/screenshots/`` (``play-*``).

* a guest plays against bots at once, then makes an account that keeps the table;
* an invite link seats a friend who has no account; the table chat shows what is
  typed as text (a script tag stays text) and Escape closes it;
* every screen: the hand and the bid buttons in view with no page scrolling, the trick
  clear of the seats and of "Next trick", the clock waiting while a trick is held,
  lead and spades-broken marks, the hand summary's score parts adding up, the race to
  the target (and no target claimed by a one-hand table), plain words for rules and
  bots and for Sevens' values, Escape closing the rules, the summary and the game over
  panel, one wording of who won, and no console error from the first visit on.
"""

from __future__ import annotations

import re
import time

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect as ws_connect

from cardrl.web.testing import ServerProcess, free_port, post, postgres_url, signup
from tests.test_web_browser import (
    LAPTOP,
    LIMIT,
    PHONE,
    SHOTS,
    Page,
    on_screen,
    tap,
)

LANDSCAPE = {"width": 844, "height": 390}
SCREENS = {"phone": PHONE, "landscape": LANDSCAPE, "laptop": LAPTOP}
WON = re.compile(r"^((You|Bot \d)( and (You|Bot \d))* won( \(a tie\))?|Nobody won)\.$")
XSS = "<img src=x onerror=\"window.__pwned=1\"><script>window.__pwned=2</script>"


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    with ServerProcess(tmp_path_factory.mktemp("web") / "web.db") as s:
        yield s


class Screen(Page):
    """A page of one screen size that also keeps every console error (a failed request
    is one) from the first visit on."""

    def __init__(self, browser, server, kind: str, name: str) -> None:
        self.server, self.size, self.name, self.kind = server, SCREENS[kind], name, kind
        self.page = browser.new_page(viewport=self.size)  # a context of its own: no cookies
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))

    def shoot(self, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SHOTS / f"play-{self.kind}-{name}.png"))

    def no_scrolling(self) -> bool:
        return self.page.evaluate("() => document.scrollingElement.scrollHeight <= innerHeight"
                                  " && document.scrollingElement.scrollWidth <= innerWidth")


def rects(page, selector: str) -> list[dict]:
    return page.eval_on_selector_all(selector, """els => els.map((e) => {
        const r = e.getBoundingClientRect();
        return {left: r.left, top: r.top, right: r.right, bottom: r.bottom};
    })""")


def overlap(a: dict, b: dict) -> bool:
    return (a["left"] < b["right"] - 1 and b["left"] < a["right"] - 1
            and a["top"] < b["bottom"] - 1 and b["top"] < a["bottom"] - 1)


def clear_of(page, first: str, second: str) -> bool:
    """No box the first selector finds overlaps one the second finds."""
    return not any(overlap(a, b) for a in rects(page, first) for b in rects(page, second))


def open_table(p: Screen, game: str, seats: list[str], preset: str | None = None,
               length: str | None = None, players: int | None = None) -> int:
    """A table from the lobby's New table form (seats after mine); its id."""
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
    page.wait_for_function(f"""() => {{
        const box = document.querySelector('#custom-form .seats');
        const s = [...document.querySelectorAll('#custom-form .seat-choice')];
        return box.dataset.shown === box.dataset.asked && s.length === {len(seats)} &&
            s.every((x) => x.options.length > 1);
    }}""")
    for select, choice in zip(page.locator("#custom-form .seat-choice").all(), seats,
                              strict=True):
        select.select_option(choice)
    page.click("#custom-go")
    page.wait_for_selector(".table-head, .waiting")
    return int(page.evaluate("location.hash").rsplit("/", 1)[1])


# --------------------------------------------------------------- guest play
def test_a_guest_plays_bots_at_once_then_keeps_the_table(browser, web_server):
    p = Screen(browser, web_server, "phone", "guest")
    page = p.page
    p.goto(pace=450)  # the pace a person gets: other players' moves 0.45 s apart
    page.wait_for_selector("#guest-go")
    # "Play now": a Spades game against bots, the guest's first move open within 2 s
    started = time.monotonic()
    page.click("#guest-go")
    page.wait_for_selector(".bid-button:not([disabled])", timeout=5000)
    first_move = time.monotonic() - started
    assert first_move < 2.0, f"the first move came after {first_move:.2f} s"
    assert "(guest)" in page.inner_text("#who") and page.inner_text("#who").startswith("guest-")
    page.click("#topbar .brand")  # the lobby: the other games, and quick match
    page.wait_for_selector("#quick-go")
    assert page.input_value("#quick-fill") == "0"  # quick match: bots at once by default
    # what only accounts do is not offered to a guest: scheduling
    assert page.locator("#guest-note").is_visible() and page.locator("#sched-start").count() == 0
    table = open_table(p, "spades", ["bot:spades/count-bid"] * 3, preset="killer", length="1")
    page.wait_for_selector(".bid-button:not([disabled])")
    assert on_screen(page, ".hand .card") and on_screen(page, ".bid-button")
    p.shoot("guest-bids")
    page.locator(".bid-button:not([disabled])").nth(2).click()
    page.wait_for_selector(".bids", state="detached")

    # keep the results: the account takes over the guest and its table
    page.click("#keep")
    page.wait_for_selector("#auth-form")
    assert "Keep your results" in page.inner_text("h1")
    page.fill("input[name=name]", "gus")
    page.fill("input[name=password]", "correct horse")
    page.press("input[name=password]", "Enter")
    page.wait_for_function("() => document.querySelector('#who').textContent === 'gus'")
    page.wait_for_selector(f".table-line:has-text('#{table} Spades')")
    assert page.locator("#guest-note").count() == 0 and page.locator("#sched-start").count()

    # now an account, gus can be invited by name: the lobby says who and when, at sign-in
    hana = signup(web_server.url, "hana")
    post(web_server.url, "/api/schedule", {
        "game": "sevens", "starts_at": time.time() + 15 * 60, "players": ["hana", "gus"],
        "rules": {"num_players": 2}}, hana)
    page.click("#signout")
    page.wait_for_selector("#auth-go")
    page.fill("input[name=name]", "gus")
    page.fill("input[name=password]", "correct horse")
    page.press("input[name=password]", "Enter")
    page.wait_for_selector("#invitations .invitation")
    note = page.inner_text("#invitations")
    assert re.search(r"hana invited you: Sevens, \w[\w ]*, starts in 1[45] minutes", note), note
    assert "hana invited you" in page.inner_text("#toast")
    p.shoot("invitation")
    p.close()


# -------------------------------------------------------------- invite link
def test_an_invite_link_seats_a_friend_and_the_chat_is_text(browser, web_server):
    host = Screen(browser, web_server, "laptop", "hosta")
    host.sign_up()
    table = open_table(host, "spades", ["open", "bot:spades/count-bid",
                                        "bot:spades/count-bid"], preset="killer", length="1")
    hp = host.page
    hp.wait_for_selector("#invite-go")
    hp.click("#invite-go")
    link = hp.input_value("#invite-link")
    assert re.fullmatch(re.escape(web_server.url) + r"/#/invite/[A-Za-z0-9_-]{32}", link), link
    host.shoot("invite-link")

    # the friend: no account, another browser (no cookies), a phone held sideways
    friend = Screen(browser, web_server, "landscape", "friend")
    fp = friend.page
    fp.goto(link.replace("/#/", "/?pace=0#/"))
    fp.wait_for_selector(".invited")
    fp.click("#guest-go")
    fp.wait_for_selector(".scoreboard")  # seated: the table was full, the game began
    assert fp.evaluate("location.hash") == f"#/table/{table}"  # the token left the address
    hp.wait_for_selector(".scoreboard")

    # the friend bids first (left of the dealer): hand and bids in view, no scrolling
    fp.wait_for_selector(".bid-button:not([disabled])")
    assert on_screen(fp, ".hand .card") and on_screen(fp, ".bid-button")
    assert friend.no_scrolling()
    friend.shoot("invited-bids")

    # chat: what is typed is shown as text, never run or drawn as HTML
    fp.click("#chat-open")
    fp.fill("#chat-input", XSS)
    fp.press("#chat-input", "Enter")
    hp.wait_for_function("() => document.querySelector('#chat-open').textContent === 'Chat (1)'")
    hp.click("#chat-open")
    line = hp.locator(".chat-lines li").last
    assert line.inner_text().endswith(XSS) and line.inner_text().startswith("guest-")
    assert hp.locator(".chat-lines img, .chat-lines script").count() == 0
    assert hp.evaluate("window.__pwned") is None and fp.evaluate("window.__pwned") is None
    host.shoot("chat")
    hp.keyboard.press("Escape")  # Escape closes the chat
    assert not hp.locator("#chat").is_visible()
    # a reload shows the chat again (it is stored)
    hp.reload()
    hp.wait_for_selector(".scoreboard")
    hp.click("#chat-open")
    hp.wait_for_selector(".chat-lines li")
    assert hp.locator(".chat-lines li").last.inner_text().endswith(XSS)
    friend.close()
    host.close()


# ------------------------------------------------------------- every screen
def check_trick(p: Screen) -> None:
    """A held trick: clear of every seat's card backs and of the button; all in view."""
    page = p.page
    assert clear_of(page, ".trick .card", ".felt .seat .card")
    assert clear_of(page, ".trick .card", ".felt .seat .badge")
    assert clear_of(page, ".trick .card, .felt .seat", "#next-trick")
    assert on_screen(page, ".trick .card") and on_screen(page, "#next-trick")
    assert on_screen(page, ".hand .card") or page.locator(".hand .card").count() == 0
    bar = page.locator("#clock-bar")
    if bar.is_visible():  # the clock waits while the trick is held
        assert "left, then a bot" not in bar.inner_text(), bar.inner_text()


def check_words_and_chat(p: Screen) -> None:
    """A tap on a game word or chip explains it (the rules a tap further); with the chat
    open no hand card or control is covered by it (element boxes); the title fits."""
    page = p.page
    tap(page.locator(".chip[data-term='d']").first)
    pop = page.locator("#term-pop")
    assert "dealer" in pop.inner_text() and page.locator("#term-rules").is_visible()
    assert on_screen(page, "#term-pop")
    p.shoot("term")
    page.keyboard.press("Escape")
    assert pop.count() == 0
    term = page.locator(".table-page .term").first  # a word in the text: "bid", "lead"...
    if term.count():
        term.click()
        assert GLOSSARY_WORDS.search(page.inner_text("#term-pop"))
        page.keyboard.press("Escape")
    head = page.locator(".table-head .head-text")
    assert head.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), head.inner_text()
    assert head.evaluate("e => e.getBoundingClientRect().height"  # two lines at most
                         " < 3 * parseFloat(getComputedStyle(e).fontSize)"), head.inner_text()
    cut = page.eval_on_selector_all(".scoreboard thead th, .scoreboard tbody th", CUT)
    assert not cut, f"names or row labels cut on the score board: {cut}"  # not "Yo..", "Sc.."
    page.click("#chat-open")
    page.wait_for_selector("#chat", state="visible")
    controls = ".hand .card, .bid-button, #rules-open, #chat-open, .table-head button"
    p.shoot("chat-open")
    assert clear_of(page, "#chat", controls), (rects(page, "#chat"), rects(page, controls))
    assert on_screen(page, ".hand .card"), rects(page, ".hand .card")  # the whole hand shows
    assert on_screen(page, "#chat-input")
    page.keyboard.press("Escape")
    assert not page.locator("#chat").is_visible()


# the cells whose text is wider than their room (a table cell's scrollWidth does not say)
CUT = """cells => cells.filter(e => {
  const text = document.createRange(); text.selectNodeContents(e);
  const s = getComputedStyle(e);
  const room = e.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
  return text.getBoundingClientRect().width > room + 0.25;
}).map(e => e.title || e.textContent)"""
GLOSSARY_WORDS = re.compile(r"trick|bid|card|spade|zero", re.I)


@pytest.mark.parametrize("kind", ["phone", "landscape", "laptop"])
def test_every_screen(browser, web_server, kind):
    p = Screen(browser, web_server, kind, f"every-{kind}")
    page = p.page
    p.goto()  # the first visit, signed out: no console error (no 401)
    page.wait_for_selector("#auth-go")
    p.sign_up()
    # plain words: presets and bots by what they are, the ids only as values
    page.select_option("#custom-game", "spades")
    presets = page.locator("#custom-preset option").all_inner_texts()
    assert "Killer (first over 250)" in presets and "killer" not in presets
    assert "every trick over it costs" in page.inner_text("#custom-preset-hint")
    page.select_option("#quick-bot", "spades/count-bid")
    assert "Easy (high-card counter)" in page.inner_text(".bot-hint")
    page.click("#quick-rules")
    page.keyboard.press("Escape")
    assert page.locator(".rules-overlay").count() == 0

    hands = "3" if kind == "laptop" else "1"
    open_table(p, "spades", ["bot:spades/count-bid"] * 3, preset="killer", length=hands)
    page.wait_for_selector(".scoreboard")
    head = page.inner_text(".table-head")
    if hands == "1":
        assert "one hand" in head and "250" not in head
    else:
        assert "first over 250, at most 3 hands: 0 / 0 / 0 / 0" in head

    pauses, leads, marks, deadline = 0, 0, set(), time.monotonic() + LIMIT
    while time.monotonic() < deadline:
        if page.locator("#next-hand").is_visible():
            break
        if page.locator("#next-trick").is_visible():
            check_trick(p)
            if pauses == 1:
                p.shoot("trick")
            if pauses == 12 and kind == "phone":  # the player's setting: on by itself
                page.click("#auto-tricks")
                page.wait_for_selector("#next-hand", timeout=5000)
                assert page.evaluate("fetch('/api/prefs').then((r) => r.json())") \
                    == {"auto_tricks": True}
            else:
                page.click("#next-trick")
            pauses += 1
            continue
        bids = page.locator(".bid-button:not([disabled])")
        if bids.count():
            assert on_screen(page, ".hand .card") and on_screen(page, ".bid-button")
            assert p.no_scrolling()
            p.shoot("bids")
            if not getattr(p, "checked", False):
                check_words_and_chat(p)
                p.checked = True
            bids.nth(min(3, bids.count() - 1)).click()
            page.wait_for_selector(".bids", state="detached")
            continue
        legal = page.locator(".hand button.card.legal")
        if legal.count():
            assert on_screen(page, ".hand .card") and p.no_scrolling()
            marks.add(page.inner_text("#spades-marks"))
            assert clear_of(page, "#spades-marks", ".felt .seat .badge, .felt .seat .card, "
                            ".trick .card, .felt .status")
            lead_chips = page.locator(".badge .chip.lead").count()
            assert lead_chips <= 1
            if page.locator(".trick .card").count():
                leads += lead_chips  # a bot led this trick: its name box says so
            tap(legal.first)
            page.wait_for_function("() => !document.querySelector('.hand button.card.legal')")
            continue
        page.wait_for_timeout(10)
    assert page.locator("#next-hand").is_visible(), "no hand summary in time"
    assert pauses == 13 and leads >= 1
    assert marks and all(m in ("spades broken", "spades not broken yet") for m in marks)

    # the summary: every player's points in parts that add up to the hand's points
    assert on_screen(page, ".summary") and on_screen(page, "#next-hand")
    rows = [r.locator("td").all_inner_texts() for r in page.locator(".summary tbody tr").all()]
    parts = page.locator(".summary .breakdown li")
    assert parts.count() == 4
    for row, li in zip(rows, parts.all(), strict=True):
        points = [int(x) for x in li.locator("span").evaluate_all(
            "spans => spans.map((s) => s.dataset.points)")]
        assert sum(points) == int(row[3]), (row, li.inner_text())
        assert re.search(r"bid \d+ made|bid \d+ missed|nil made|nil failed", li.inner_text())
    p.shoot("summary")
    totals = [r[-1] for r in rows]
    page.keyboard.press("Escape")  # Escape goes on from the summary
    page.wait_for_selector("#next-hand", state="detached")
    if hands == "3":  # the race to the target, after the first hand
        page.wait_for_function("() => document.querySelector('.table-head').textContent"
                               ".includes('hand 2')")
        assert f"first over 250, at most 3 hands: {' / '.join(totals)}" in \
            page.inner_text(".table-head")
        p.goto()
    else:
        page.wait_for_selector("#game-over")
        assert WON.match(page.inner_text("#game-over .final"))
        assert on_screen(page, "#play-again")
        p.shoot("over")
        page.keyboard.press("Escape")
        assert page.locator("#game-over").count() == 0

    # Sevens in words: what each card counts, what totals score
    open_table(p, "sevens", ["bot:sevens/greedy"] * 3, preset="random", players=4)
    page.wait_for_selector(".gt-value")
    words = page.inner_text(".gt-params")
    assert "multiple of 7" in words and "digit 7" in words and "/" not in words
    two = page.locator(".gt-value.two")
    if two.count():
        assert " or " in two.first.inner_text()
    page.wait_for_selector(".gt-hand button.card.legal")
    assert on_screen(page, ".gt-hand .card")
    # the hand stays put however many plays score: their list (a line per scoring card and
    # value, which on a phone pushed the hand below the fold) comes after it
    [hand] = rects(page, ".gt-hand .hand")
    assert all(r["top"] >= hand["bottom"] for r in rects(page, ".gt-options"))
    assert page.inner_text(".sevens-felt .gt-event").startswith("Next card:")
    p.shoot("sevens")
    p.close()


def test_a_page_goes_on_through_another_server_when_its_server_dies(browser):
    """Issue 57: two servers on one PostgreSQL; the one that served the page and runs its
    table is killed at the player's turn. The bid played shows as sending, a banner says
    why, and the page goes on through the other server (which takes the table over)
    without a reload: the bid is made there. The lobby's requests then move the page to
    the live server."""
    url, ports = postgres_url(), [free_port(), free_port()]
    procs = [ServerProcess(url, port, "--lease-seconds", "2", "--public-url",
                           f"http://127.0.0.1:{port}") for port in ports]
    try:
        for proc in procs:
            proc.start()
        p = Screen(browser, procs[0], "laptop", "takeover")
        page = p.page
        p.goto(pace=0)
        page.click("#guest-go")  # a Spades table against bots, run by the first server
        page.wait_for_selector(".bid-button:not([disabled])", timeout=8000)
        page.evaluate("window.__same_page = true")
        procs[0].stop(kill=True)
        page.locator(".bid-button:not([disabled])").nth(2).click()
        assert page.locator(".bid-button.sending").count() == 1  # pending, the clock stopped
        page.wait_for_selector("#pending-banner:not([hidden])", timeout=3000)
        p.shoot("takeover-pending")
        page.wait_for_selector(".bids", state="detached", timeout=20000)  # made elsewhere
        assert page.evaluate("window.__same_page") is True  # no reload
        assert page.locator("#pending-banner").is_hidden()
        # the lobby's requests cannot reach the dead server: the page moves to the live one
        # (the same host: the login goes with it)
        loads = []  # the page's own loads from the live server: one move, not one per request
        page.on("request", lambda r: loads.append(r.url) if r.is_navigation_request()
                and r.frame == page.main_frame and r.url.startswith(procs[1].url) else None)
        page.click(".table-head a[href='#/']")  # "<- Lobby"
        page.wait_for_url(f"{procs[1].url}/**", timeout=10000)
        page.wait_for_selector("#quick-bot", timeout=10000)
        assert len(loads) == 1, loads
        # the Origin check: the stored addresses' pages only
        cookie = signup(procs[1].url, "takeover")
        for origin, ok in ((f"http://127.0.0.1:{ports[0]}", True),
                           ("http://127.0.0.1:1", False), ("https://evil.example", False)):
            try:
                with ws_connect(procs[1].ws_url, origin=origin, open_timeout=5,
                                additional_headers={"Cookie": cookie}) as ws:
                    assert ok and '"peers"' in ws.recv(timeout=5)  # the live servers
            except InvalidStatus as err:
                assert not ok and err.response.status_code == 403, origin
    finally:
        for proc in procs:
            proc.stop()
