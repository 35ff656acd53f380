"""The arena in headless Chromium, as its users meet it: upload a bot (the .onnx file and
its card, as ``train`` exports them), watch it reach the leaderboard, refuse a hostile
upload with its reason, sit down against the uploaded bot and play the game to its end,
and withdraw it; on a laptop and on a phone. Screenshots in ``runs/screenshots/``."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from cardrl.web.testing import ServerProcess
from tests import arena_util as nets
from tests.test_web_browser import LAPTOP, PHONE, Page, game_over, names


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("arena")
    with ServerProcess(folder / "web.db", None, "--arena-dir", str(folder / "files"),
                       "--arena-deals", "1") as s:
        yield s


def bot_files(folder: Path, model: bytes, stem: str) -> tuple[str, str]:
    """An exported bot's two files: the network and its card naming it."""
    onnx, card = folder / f"{stem}.onnx", folder / f"{stem}.json"
    onnx.write_bytes(model)
    card.write_text(json.dumps({**nets.CARD, "onnx": onnx.name}))
    return str(onnx), str(card)


def upload(p: Page, name: str, files: tuple[str, str]) -> None:
    page = p.page
    page.fill("#arena-name", name)
    page.set_input_files("#arena-onnx", files[0])
    page.set_input_files("#arena-card", files[1])
    page.click("#arena-upload")
    page.wait_for_function("() => document.querySelector('#arena-upload').textContent "
                           "=== 'Upload'", timeout=60_000)


def play_against(p: Page) -> None:
    """Play a whole Blind Auction game against the uploaded bot from its row."""
    page = p.page
    page.click("#arena-ranks tr[data-bot^='arena:'] .play-against")
    page.wait_for_selector(".gt")
    rounds, deadline = 0, time.monotonic() + 60
    while time.monotonic() < deadline:
        if page.locator("#game-over").count():
            break
        if page.locator("#next-round").is_visible():
            rounds += 1
            bids = names(page.locator(".gt-reveal figure:not(:first-child) .card"))
            assert len(bids) == 2 and all(bids)  # the uploaded bot bid too
            if rounds == 2:
                p.shoot("arena-play")
            page.click("#next-round")
            continue
        legal = page.locator(".gt-hand button.card.legal")
        if not legal.count():
            page.wait_for_timeout(20)
            continue
        legal.nth(0).click()
        page.wait_for_selector("#next-round", timeout=15_000)
    assert rounds == 13
    game_over(p, "arena-blind_auction", 2)


@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_upload_leaderboard_play_and_withdraw(browser, server, size, tmp_path):
    kind = "laptop" if size is LAPTOP else "phone"
    p = Page(browser, server, size, f"arena-{kind}")
    p.sign_up()
    page = p.page
    page.click("#arena-link")
    page.wait_for_selector("#arena-form")
    # a hostile upload: refused, the reason on the page, nothing listed
    upload(p, "Poison", bot_files(tmp_path, nets.nan_output(), "poison"))
    assert "non-finite" in page.inner_text("#arena-error")
    assert page.locator("#arena-mine li").count() == 0
    p.shoot("arena-refused")
    # a good one: listed at once, then ranked once its deal is played
    upload(p, f"Linear {kind}", bot_files(tmp_path, nets.good(), "linear"))
    assert page.inner_text("#arena-error") == ""
    page.wait_for_selector("#arena-mine li[data-bot^='arena:']")
    assert "listed" in page.inner_text("#arena-mine")
    assert "Blind Auction" in page.locator("#arena-division option:checked").inner_text()
    mine = f"#arena-ranks tr:has-text('Linear {kind}')"
    deadline = time.monotonic() + 90
    while page.locator(f"{mine} td").nth(2).inner_text() != "1":
        assert time.monotonic() < deadline
        page.wait_for_timeout(500)
        page.select_option("#arena-division", page.input_value("#arena-division"))
    assert page.locator("#arena-h2h tbody tr").count() >= 2  # both ways against its opponent
    assert "%" in page.locator(f"{mine} td").nth(3).inner_text()
    p.shoot("arena-board")
    # anyone sits down against it: play the game through
    play_against(p)
    # and its owner withdraws it
    page.click("#to-lobby")
    page.click("#arena-link")
    page.wait_for_selector(f"#arena-mine li:has-text('Linear {kind}') .withdraw")
    page.click(f"#arena-mine li:has-text('Linear {kind}') .withdraw")
    page.wait_for_selector(f"#arena-mine li:has-text('Linear {kind}'):has-text('withdrawn')")
    assert page.locator(mine).count() == 0
    p.shoot("arena-withdrawn")
    p.close()
