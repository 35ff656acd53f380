"""The Gin Rummy, Sevens and Blind Auction tables in headless Chromium, driven by clicks.

A person signs up and quick-matches each game against bots on a phone-sized
screen. Gin Rummy: the hand is shown split into valid melds with the least
deadwood (checked against the engine's meld code), the knock button appears
exactly when a knock is legal, and the person draws, discards and knocks until
a hand ends and its summary shows. Sevens: the playable cards are exactly those
the colour/suit rule allows, a two-valued card asks for its value, and the
running total moves by the value chosen, through the whole game. Blind Auction:
every bid is revealed with the opponent's when the round resolves, and the
history grows by a round each time. Screenshots at phone and laptop sizes go to
``runs/screenshots/`` (games-*.png).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from envs import cards
from envs.gin_rummy.melds import deadwood, deadwood_after_discards, mask_of
from tests.test_web_browser import shoot as shoot_both
from tests.test_web_browser import signed_up_page

RANK_LOW = "A23456789TJQK"
TAP_X = 4  # px from a card's left edge: inside the strip a fanned hand leaves in view


def shoot(page, name: str) -> None:
    shoot_both(page, name, prefix="games-")


def tap(card) -> None:
    """Click a card on its left strip, where a person taps a fanned hand.

    On a phone the hand overlaps (``fitGroups``): each card shows only its left
    strip, so its centre, where Playwright clicks, may lie under the next card.
    """
    card.click(position={"x": TAP_X, "y": card.bounding_box()["height"] / 2})


def all_tappable(page, selector: str) -> bool:
    """Every card the selector finds is the top element at its tap point."""
    return page.eval_on_selector_all(selector, f"""cards => cards.every((c) => {{
        const r = c.getBoundingClientRect();
        return c.contains(document.elementFromPoint(r.left + {TAP_X}, r.top + r.height / 2));
    }})""")


def names(locator) -> list[str]:
    return [c.get_attribute("data-card") for c in locator.all()]


def quick_match(page, game: str, bot: str) -> None:
    page.goto(page.url.split("#")[0] + "#/")
    page.wait_for_selector("#quick-go")
    page.select_option("#quick-game", game)
    page.select_option("#quick-bot", bot)
    page.select_option("#quick-fill", "0")
    page.click("#quick-go")
    page.wait_for_selector(".gt")


def is_meld(group: list[str]) -> bool:
    """A set of 3-4 of a rank, or a run of 3+ in one suit with the ace low (RULES.md 2)."""
    ranks = [RANK_LOW.index(c[:-1].replace("10", "T")) for c in group]
    suits = {c[-1] for c in group}
    if len(set(ranks)) == 1:
        return len(group) in (3, 4)
    return len(suits) == 1 and len(group) >= 3 and sorted(ranks) == list(
        range(min(ranks), min(ranks) + len(group)))


def card_points(name: str) -> int:
    return min(RANK_LOW.index(name[:-1].replace("10", "T")) + 1, 10)


def play_gin(page) -> None:
    quick_match(page, "gin_rummy", "gin_rummy/simple")
    turns, shot, deadline = 0, False, time.monotonic() + 40
    while time.monotonic() < deadline:
        if page.locator("#next-hand").is_visible():
            break
        held = names(page.locator(".gt-groups .card"))
        stock = page.locator("button#gin-stock")
        discard = page.locator(".gt-groups button.card.legal")
        if not (stock.count() or discard.count()):
            page.wait_for_timeout(20)
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
            if turns == 1 and not shot:
                shoot(page, "gin-draw")
                shot = True
            stock.click()
            page.wait_for_selector("button#gin-stock", state="detached")
            continue
        assert len(held) == 11
        assert knock.count() == (1 if deadwood_after_discards(mask, 10) else 0)
        if knock.count():
            knock.click()
            shoot(page, "gin-knock")
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
    assert page.locator(".gt-summary tbody tr").count() == 2
    shoot(page, "gin-summary")
    page.click("#next-hand")
    page.wait_for_selector(".overlay", state="detached")
    # the next hand is on (a quick bot may already have ended it too), or the game is over
    head = re.search(r"hand (\d+)", page.inner_text(".table-head"))
    assert (head and int(head.group(1)) >= 2) or "Game over" in page.inner_text(".status")


def sevens_playable(hand: list[str], last: str) -> set[str]:
    """RULES.md section 3, from card names: another colour if held, else another suit."""
    red = set("HD")
    other_colour = [c for c in hand if (c[-1] in red) != (last[-1] in red)]
    other_suit = [c for c in hand if c[-1] != last[-1]]
    return set(other_colour or other_suit or hand)


def play_sevens(page) -> None:
    quick_match(page, "sevens", "sevens/greedy")
    assert page.locator(".gt-value").count() == 13  # the parameters, always in view
    plays, two_values, deadline = 0, 0, time.monotonic() + 40
    while time.monotonic() < deadline and "Game over" not in page.inner_text(".status"):
        legal = page.locator(".gt-hand button.card.legal")
        if not legal.count():
            page.wait_for_timeout(20)
            continue
        held = names(page.locator(".gt-hand .card"))
        last = page.locator(".sevens-felt .card.up").get_attribute("data-card")
        assert set(names(legal)) == sevens_playable(held, last), (held, last)
        total = int(page.inner_text("#sevens-total"))
        if plays == 1:
            shoot(page, "sevens-play")
        tap(legal.first)
        choice = page.locator(".value-button")
        if choice.count():  # a symbol with two values: choose the second
            assert choice.count() == 2
            if two_values == 0:
                shoot(page, "sevens-choose")
            value_text = choice.nth(1).inner_text()
            choice.nth(1).click()
            two_values += 1
        else:
            value_text = None
        plays += 1
        page.wait_for_function(
            f"() => document.querySelectorAll('.gt-hand .card').length === {len(held) - 1}")
        if value_text is not None:  # "v -> t (+p)": the total moved by the value chosen
            value, after = (int(x) for x in value_text.replace("\u2192", " ").split()[:2])
            assert after == total + value
    assert "Game over" in page.inner_text(".status"), "the Sevens game did not end"
    assert plays == 12 and page.locator(".gt-hand .card").count() == 0  # 4 players: 12 each
    shoot(page, "sevens-over")


def play_auction(page) -> None:
    quick_match(page, "blind_auction", "random")
    rounds, bid, deadline = 0, None, time.monotonic() + 40
    while time.monotonic() < deadline:
        if page.locator("#next-round").is_visible():
            rounds += 1
            [mine, theirs] = names(page.locator(".gt-reveal figure:not(:first-child) .card"))
            assert mine == bid
            assert theirs.endswith("C")  # seat 1 bids clubs
            if rounds == 2:
                shoot(page, "auction-reveal")
            page.click("#next-round")
            page.wait_for_selector(".overlay", state="detached")
            assert page.locator(".gt-rounds tbody tr").count() == rounds
            continue
        if "Game over" in page.inner_text(".status"):
            break
        legal = page.locator(".gt-hand button.card.legal")
        if not legal.count():
            page.wait_for_timeout(20)
            continue
        assert legal.count() == 13 - rounds
        if rounds == 3:
            shoot(page, "auction-bid")
        choice = legal.nth(rounds % legal.count())
        bid = choice.get_attribute("data-card")
        choice.click()
        page.wait_for_selector("#next-round")  # the bot bids at once: the round resolves
    assert rounds == 13 and "Game over" in page.inner_text(".status")
    shoot(page, "auction-over")


def test_gin_sevens_and_auction_tables_in_the_browser(tmp_path: Path):
    with signed_up_page(tmp_path / "web.db", "gina") as page:
        play_gin(page)
        play_sevens(page)
        play_auction(page)
