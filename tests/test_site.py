"""The browser view (`bidou site`), tested in a real headless Chromium.

The site is built once from the published games (outputs/) into a temporary folder; each
page is loaded from the file system in Debian's `chromium`, driven over the Chrome DevTools
Protocol (a websocket, with tornado's client: no new dependency). Every page must load
without a console error, an exception or any request but file:// and data:, and changing
its controls must show the numbers of the strategy file (read here, apart from the site's
code), of round.json. Screenshots are taken of each page; with BIDOU_SITE_SCREENSHOTS=DIR
they are also written there (docs/img/site_*.png come from that).

Without chromium the browser tests skip, unless CI is set: then they fail.
`apt-get install -y chromium` (Debian) installs it; `.ci/run` does.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from solver.app.cli import main

ROOT = Path(__file__).resolve().parents[1]
OUTPUTS = ROOT / "outputs"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SHOTS = os.environ.get("BIDOU_SITE_SCREENSHOTS")


# --- a minimal DevTools Protocol client ----------------------------------------------------

class Browser:
    """Headless Chromium with one page, driven over its DevTools websocket."""

    def __init__(self, profile: Path):
        self.process = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--no-default-browser-check", "--disable-extensions", "--disable-sync",
             "--disable-background-networking", "--remote-debugging-port=0",
             f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 120           # a hang guard: chromium starts in seconds
        while not (port_file.is_file() and len(port_file.read_text().split()) == 2):
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.close()
                raise RuntimeError("chromium did not open its DevTools port")
            time.sleep(0.05)
        try:
            self._connect(*port_file.read_text().split())
        except BaseException:              # never leave a browser running behind a failure
            self.close()
            raise

    def _connect(self, port: str, path: str) -> None:
        from tornado.websocket import websocket_connect

        async def connect() -> Any:
            return await websocket_connect(f"ws://127.0.0.1:{port}{path}",
                                           max_message_size=256 * 2**20)

        self.loop = asyncio.new_event_loop()
        self.socket = self.loop.run_until_complete(connect())
        self.counter = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", session=False, url="about:blank")
        self.session = self.call("Target.attachToTarget", session=False,
                                 targetId=target["targetId"], flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=1240, height=900,
                  deviceScaleFactor=1, mobile=False)

    def _receive(self, timeout: float = 120) -> dict[str, Any]:
        async def read() -> Any:
            return await asyncio.wait_for(self.socket.read_message(), timeout)

        text = self.loop.run_until_complete(read())
        if text is None:
            raise RuntimeError("chromium closed the DevTools connection")
        return json.loads(text)

    def call(self, method: str, session: bool = True, **params: Any) -> dict[str, Any]:
        self.counter += 1
        message: dict[str, Any] = {"id": self.counter, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        async def write() -> None:
            await self.socket.write_message(json.dumps(message))

        self.loop.run_until_complete(write())
        while True:
            reply = self._receive()
            if reply.get("id") == self.counter:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def goto(self, url: str) -> None:
        self.events.clear()
        self.call("Page.navigate", url=url)
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            self.events.append(self._receive())

    def run(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (exceptions raise here)."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def choose(self, select_id: str, value: Any) -> None:
        """Pick an option of a <select> as a person would: its value, then a change event."""
        self.run(f"(() => {{ const box = document.getElementById({json.dumps(select_id)});"
                 f" box.value = {json.dumps(str(value))};"
                 f" if (box.value !== {json.dumps(str(value))}) throw new Error('no option');"
                 f" box.dispatchEvent(new Event('change')); }})()")

    def problems(self) -> list[str]:
        """Console errors, exceptions and any request that is not file:// or data:."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(f"exception: {params['exceptionDetails']}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error",
                                                                                  "assert"):
                found.append(f"console.{params['type']}: {params.get('args')}")
            elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
                found.append(f"log: {params['entry'].get('text')}")
            elif method == "Network.requestWillBeSent":
                url = params["request"]["url"]
                if not url.startswith(("file://", "data:")):
                    found.append(f"request: {url}")
        return found

    def screenshot(self, path: Path) -> bytes:
        data = base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
        path.write_bytes(data)
        if SHOTS:
            _save_small(data, Path(SHOTS) / path.name)
        return data

    def close(self) -> None:
        if getattr(self, "socket", None) is not None:
            self.socket.close()
        if getattr(self, "loop", None) is not None:
            self.loop.close()
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _save_small(png: bytes, path: Path) -> None:
    """A screenshot for the docs: the same picture in 256 colours (flat page colours lose
    nothing visible), a third of the bytes."""
    import io

    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT,
                   dither=Image.Dither.NONE).save(path, optimize=True)


# --- fixtures -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site of the published games, built by the command."""
    out = tmp_path_factory.mktemp("site")
    result = CliRunner().invoke(main, ["site", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _need_chromium(chromium: str | None) -> str:
    """The browser's path; without one the test skips, or fails when CI is set."""
    if chromium is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed, and CI is set: `apt-get install -y "
                        "chromium` (.ci/run does)")
        pytest.skip("chromium is not installed (`apt-get install -y chromium`)")
    return chromium


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    _need_chromium(CHROMIUM)
    chromium = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield chromium
    chromium.close()


def _open(browser: Browser, site: Path, page: str) -> None:
    browser.goto((site / page).as_uri())
    assert browser.problems() == []


def _strategy_file(name: str) -> dict[str, Any]:
    return json.loads((OUTPUTS / name / "strategy.json").read_text())


def _percent(text: str) -> float:
    """A frequency as the page prints it ("58.3%", "<0.1%", ">99.9%") as a probability."""
    if text == "<0.1%":
        return 0.0005
    if text == ">99.9%":
        return 0.9995
    match = re.fullmatch(r"(\d+(?:\.\d)?)%", text)
    assert match, text
    return float(match.group(1)) / 100


def _agrees(text: str, p: float) -> bool:
    """The printed frequency is the probability, to the page's one decimal of a percent
    ("0%" and "100%" only at the embedded data's precision, 1e-6: below it is LP noise)."""
    if text in ("0%", "100%"):
        return abs(p - float(text[:-1]) / 100) < 5e-7
    return abs(_percent(text) - p) <= 0.0005 + 1e-9


def _shown_table(browser: Browser) -> dict[str, dict[str, str]]:
    """The decision table as shown: hand -> action -> frequency text."""
    rows = browser.run("""[...document.querySelectorAll('#decision-table tbody tr')].map(
        (r) => [r.dataset.hand, [...r.querySelectorAll('td.freq')].map(
            (c) => [c.dataset.action, c.textContent])])""")
    return {hand: dict(cells) for hand, cells in rows}


def _shown_values(browser: Browser) -> dict[str, dict[str, str]]:
    """The decision table's values as shown: hand -> action -> chips text."""
    rows = browser.run("""[...document.querySelectorAll('#decision-table tbody tr')].map(
        (r) => [r.dataset.hand, [...r.querySelectorAll('td.val')].map(
            (c) => [c.dataset.action, c.textContent])])""")
    return {hand: dict(cells) for hand, cells in rows}


def _chips(text: str) -> float:
    """"+0.1234" / "−0.0369" (a true minus sign) as a number."""
    assert re.fullmatch("[+\u2212]\\d+\\.\\d{4}", text), text
    return float(text.replace("\u2212", "-"))


def _assert_values(browser: Browser, name: str, tc: int, to: int, history: str) -> None:
    """The values shown are the library's (solver.analysis.action_values on the strategy
    file), and at an on-path decision every action the equilibrium plays is worth the
    most (mixing indifference, four decimals)."""
    from solver.analysis.action_values import action_values
    from solver.hand.strategy import load_strategy_file

    model, strategy, _ = load_strategy_file(OUTPUTS / name / "strategy.json")
    decision = action_values(model, strategy).bet(tc, to, history)
    probabilities = _file_node(_strategy_file(name), tc, to, history)
    shown = _shown_values(browser)
    for h, hand in enumerate(_strategy_file(name)["hands"]):
        values = {a: _chips(shown[hand][a]) for a in decision.actions}
        for i, action in enumerate(decision.actions):
            assert values[action] == pytest.approx(decision.values[h][i], abs=5e-5)
            if probabilities[hand][action] > 1e-6 and not decision.off_path:
                assert values[action] >= max(values.values()) - 2e-4, (hand, values)


def _file_node(document: dict[str, Any], tc: int, to: int, history: str
               ) -> dict[str, dict[str, float]]:
    """hand -> action -> probability at one betting node, read from the strategy file."""
    entry = next(e for e in document["betting"] if (e["captain_throws"], e["opponent_throws"],
                                                     e["history"]) == (tc, to, history))
    return {hand: {a: entry["probabilities"][i][h] for i, a in enumerate(entry["actions"])}
            for h, hand in enumerate(document["hands"])}


def _assert_node(browser: Browser, document: dict[str, Any], tc: int, to: int,
                 history: str) -> None:
    shown, expected = _shown_table(browser), _file_node(document, tc, to, history)
    assert set(shown) == set(expected)
    for hand, actions in expected.items():
        assert set(shown[hand]) == set(actions)
        for action, p in actions.items():
            assert _agrees(shown[hand][action], p), (hand, action, shown[hand][action], p)


# --- the pages ------------------------------------------------------------------------------

@pytest.mark.slow
def test_betting_page_shows_the_strategy_files_numbers(site, browser, tmp_path):
    _open(browser, site, "index.html")
    default = _strategy_file("default")
    _assert_node(browser, default, 1, 1, "")
    _assert_values(browser, "default", 1, 1, "")
    # the charts' order: strongest first, the bidou at the top of the encyclopedia ranking
    order = browser.run("[...document.querySelectorAll('#decision-table tbody tr')]"
                        ".map((r) => r.dataset.hand)")
    assert order[:2] == ["2-1-1", "6-6-6"] and len(order) == 56
    browser.screenshot(tmp_path / "site_hand.png")
    # other rules, throw counts and betting: the keep rules, captain 2 throws, opponent 3,
    # the captain has bet: the opponent faces a bet
    browser.choose("rules", 1)
    browser.choose("captain-throws", 2)
    browser.choose("opponent-throws", 3)
    browser.choose("history", "b")
    assert "the opponent faces a bet" in browser.run(
        "document.getElementById('decision').textContent")
    _assert_node(browser, _strategy_file("keep"), 2, 3, "b")
    browser.choose("history", "br")
    _assert_node(browser, _strategy_file("keep"), 2, 3, "br")
    summary = browser.run("document.getElementById('summary').textContent")
    assert "-341442512050376231/5562034043169853440" in summary     # the keep game's value
    assert "reroll keep" in summary
    browser.choose("rules", 2)                     # french, same state and history kept
    _assert_node(browser, _strategy_file("french"), 2, 3, "br")
    browser.choose("rules", 1)
    browser.choose("captain-throws", 1)
    browser.choose("opponent-throws", 2)
    browser.choose("history", "pbr")               # the opponent faces a raise to 2
    _assert_node(browser, _strategy_file("keep"), 1, 2, "pbr")
    _assert_values(browser, "keep", 1, 2, "pbr")
    # the captain never passes and then raises there: said in words over the table
    assert "Off the equilibrium path" in browser.run(
        "document.getElementById('off-path').textContent")
    browser.choose("captain-throws", 3)
    browser.choose("opponent-throws", 3)
    browser.choose("history", "pbr")               # on the path, and mixed
    assert browser.run("document.getElementById('off-path')") is None
    assert "null" not in browser.run("document.getElementById('content').textContent")
    _assert_node(browser, _strategy_file("keep"), 3, 3, "pbr")
    _assert_values(browser, "keep", 3, 3, "pbr")
    browser.screenshot(tmp_path / "site_betting.png")
    browser.choose("rules", 0)
    browser.choose("captain-throws", 3)
    browser.choose("opponent-throws", 1)           # the opponent bets first here
    browser.choose("history", "")
    assert "the opponent opens" in browser.run("document.getElementById('decision')"
                                               ".textContent")
    _assert_node(browser, default, 3, 1, "")
    browser.choose("history", "p")
    _assert_node(browser, default, 3, 1, "p")
    assert browser.problems() == []


def test_the_address_keeps_the_choice(site, browser):
    """A link to a decision opens on it, and the other page's link keeps the rules."""
    _open(browser, site, "index.html")
    browser.choose("rules", 2)
    browser.choose("captain-throws", 2)
    browser.choose("history", "b")
    link = browser.run("location.hash")
    assert link == "#rules=french&c=2&o=1&bets=b"
    browser.goto("about:blank")                    # a fresh load of the link
    browser.goto((site / "index.html").as_uri() + "#rules=keep&c=2&o=3&bets=br")
    assert browser.problems() == []
    _assert_node(browser, _strategy_file("keep"), 2, 3, "br")
    assert browser.run("document.getElementById('nav-reroll').getAttribute('href')") == \
        "reroll.html#rules=keep"
    browser.goto("about:blank")                    # a broken link: the first decision
    browser.goto((site / "index.html").as_uri() + "#rules=nope&c=9&o=x&bets=zzz")
    assert browser.problems() == []
    _assert_node(browser, _strategy_file("default"), 1, 1, "")
    browser.goto((site / "reroll.html").as_uri() + "#rules=keep")
    assert "reroll keep" in browser.run("document.getElementById('summary').textContent")
    assert browser.problems() == []


def test_reroll_page_says_what_to_keep(site, browser, tmp_path):
    _open(browser, site, "reroll.html")

    def cell(hand: str, column: int) -> str:
        return browser.run(f"document.querySelector('#reroll-table tr[data-hand=\"{hand}\"] "
                           f"td[data-column=\"{column}\"]').title")

    default = _strategy_file("default")
    hands = default["hands"]
    stop = default["throw"]["captain"][0][0]      # captain, after throw 1, "stop"
    h = hands.index("6-5-2")
    assert 0 < stop[h] < 1                          # a mixed cell, both parts named
    title = cell("6-5-2", 0)
    shown = dict(re.findall(r"(stop|throw all three) ([<>]?[\d.]+%)", title))
    assert _agrees(shown["stop"], stop[h]) and _agrees(shown["throw all three"], 1 - stop[h])
    assert "stop 100%" in cell("6-6-6", 0)
    # each action's value is in the cell's title: the library's, to four decimals
    from solver.analysis.action_values import action_values
    from solver.hand.strategy import load_strategy_file

    model, strategy, _ = load_strategy_file(OUTPUTS / "default" / "strategy.json")
    stop_value = action_values(model, strategy).throw(0, 0, 0).values[h][0]
    value = re.search("stop [<>]?[\\d.]+% \\(([+\u2212][\\d.]+) chips\\)", title)
    assert value and _chips(value.group(1)) == pytest.approx(stop_value, abs=5e-5)
    browser.choose("rules", 1)                     # keep: the dice to keep are named
    keep = _strategy_file("keep")
    names = keep["throw_actions"]
    probs = keep["throw"]["captain"][0]            # after throw 1: [action][hand]
    checked = 0
    for hand in ("6-6-1", "5-4-1", "3-2-2"):
        h = keep["hands"].index(hand)
        title = cell(hand, 0)
        for a, name in enumerate(names):
            if probs[a][h] > 5e-4:
                words = {"stop": "stop", "reroll": "throw all three"}.get(name, name)
                found = re.search(re.escape(words) + r" ([<>]?[\d.]+%)", title)
                assert found and _agrees(found.group(1), probs[a][h]), (hand, name, title)
                checked += 1
    assert checked >= 3
    browser.screenshot(tmp_path / "site_reroll.png")
    assert browser.problems() == []


def test_round_page_map_and_a_states_advice(site, browser, tmp_path):
    _open(browser, site, "round.html")
    report = json.loads((OUTPUTS / "round" / "round.json").read_text())
    keep = json.loads((OUTPUTS / "round-keep" / "round.json").read_text())
    cells = browser.run("document.querySelectorAll('#round-map td[data-state]').length")
    assert cells == len(report["states"]) + sum(s["open_throw"] for s in report["states"])
    assert f"{report['start_value']:.12f}" in browser.run(
        "document.getElementById('summary').textContent")
    state = next(s for s in report["states"] if (s["centre"], s["captain"],
                                                 s["opponent"]) == (0, 2, 7))
    browser.run("document.querySelector('#round-map td[data-state=\"0,2,7\"]').click()")
    assert browser.run("document.getElementById('advice-value').textContent").endswith(
        f"{state['value']:.12f}")
    stakes = browser.run("[...document.querySelectorAll('#stakes tr')].map((r) => "
                         "[...r.children].map((c) => c.textContent))")
    rows = {row[0]: row for row in stakes[1:]}
    # winning a two-chip showdown hands the opponent all nine chips: he loses the round
    assert rows["showdown at level 2: the captain wins"][1:] == [
        "0, 0, 9", "the captain wins the round", "1.0000"]
    # losing one: the captain holds 4 and becomes the opponent of the state 0,5,4
    lost = next(s for s in report["states"] if (s["centre"], s["captain"],
                                                s["opponent"]) == (0, 5, 4))
    assert rows["showdown at level 2: the captain loses"][3] == f"{1 - lost['value']:.4f}"
    swing = browser.run("document.getElementById('swing').textContent")
    won = next(s for s in report["states"] if s["open_throw"] and (s["centre"], s["captain"])
               == (0, 1))                      # winning 1 chip: 1 against 8, an open throw
    assert f"to {won['value']:.3f} (won)" in swing
    browser.screenshot(tmp_path / "site_round.png")
    browser.choose("round", 1)
    assert f"{keep['start_value']:.12f}" in browser.run(
        "document.getElementById('summary').textContent")
    assert browser.problems() == []


def test_montevideo_page_map_and_a_states_play(site, browser, tmp_path):
    _open(browser, site, "montevideo.html")
    report = json.loads((OUTPUTS / "montevideo" / "heads-up.json").read_text())
    cells = browser.run("document.querySelectorAll('#montevideo-map td[data-state]').length")
    assert cells == len(report["states"]) == 85
    state = next(e for e in report["states"] if (e["captain"], e["opponent"], e["ante"])
                 == (12, 6, 4))
    browser.run("document.querySelector('#montevideo-map td[data-state=\"12,6,4\"]').click()")
    assert browser.run("document.getElementById('advice-value').textContent").endswith(
        f"{state['value']:.12f}")
    rows = browser.run("[...document.querySelectorAll('#push-fold tr')].map((r) => "
                       "[...r.children].map((c) => c.textContent))")
    assert len(rows) == 1 + len(report["hands"])
    first = rows[1]
    assert first[0] == report["hands"][0]
    p = state["push_fold"]["call"][0]
    assert first[3] == "never met" if p is None else _agrees(first[3], p)
    browser.screenshot(tmp_path / "site_montevideo.png")
    # a state where a player is all in by the ante has no betting to show
    browser.run("document.querySelector('#montevideo-map td[data-state=\"17,1,6\"]').click()")
    assert "all in by the ante" in browser.run(
        "document.getElementById('no-betting').textContent")
    assert browser.problems() == []


# --- the command ----------------------------------------------------------------------------

def _data(page: Path) -> dict[str, Any]:
    text = page.read_text()
    found = re.search(r'<script type="application/json" id="bidou-data">(.*?)</script>', text,
                      re.S)
    assert found
    return json.loads(found.group(1))


def test_pages_are_self_contained_and_small(site):
    for name in ("index.html", "reroll.html", "round.html", "montevideo.html"):
        page = site / name
        text = page.read_text()
        assert page.stat().st_size < 2_000_000
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", text)
        assert "/*DATA*/" not in text and "/*SCRIPT*/" not in text
    data = _data(site / "index.html")
    assert data["schema"] == "bidou-site" and data["schema_version"] == 1
    assert [r["name"] for r in data["rule_sets"]] == ["default", "keep", "french"]
    assert data["rule_sets"][0]["summary"]["exact"] == "-67764799477/1836660096000"


@pytest.mark.slow
def test_other_rules_are_solved_on_the_spot_and_listed_first(tmp_path):
    result = CliRunner().invoke(main, ["site", "--faces", "3", "--throws", "2",
                                       "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    sets = _data(tmp_path / "index.html")["rule_sets"]
    assert [r["name"] for r in sets] == ["your rules", "default", "keep", "french"]
    assert _data(tmp_path / "index.html")["selected"] == 0
    assert sets[0]["summary"]["rules"].startswith("3 faces, 2 throws")
    assert len(sets[0]["hands"]) == 10 and sets[0]["throws"] == 2


@pytest.mark.slow
def test_without_published_games_they_are_solved_and_the_round_left_out(tmp_path, browser,
                                                                        monkeypatch):
    """An installed copy has no outputs/: the three games are solved on the spot (LP and
    certificate), the round page says how to solve one; rules options naming a published
    game open the pages on it. Solved here as plain LP vertices: the refined default takes
    about 95 s for the three (keep alone 67 s) and is tested in tests/test_refine_default.py;
    what this test holds is the flow without outputs/."""
    import functools

    from solver.pipeline import hand

    monkeypatch.setattr(hand, "solve_hand", functools.partial(hand.solve_hand, plain=True))
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(main, ["site", "--root", str(tmp_path / "empty"), "--reroll",
                                       "keep", "--out", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert "no solved round found" in result.output
    data = _data(tmp_path / "site" / "index.html")
    assert [r["name"] for r in data["rule_sets"]] == ["default", "keep", "french"]
    assert data["selected"] == 1
    keep = data["rule_sets"][1]["summary"]
    assert keep["exact"] is None and keep["status"] == "optimal" and not keep["claimed"]
    lower, upper = (float(x) for x in keep["interval"])
    assert lower <= -0.061388065840709069 <= upper and upper - lower < 1e-9
    assert _data(tmp_path / "site" / "round.html")["rounds"] == []
    _open(browser, tmp_path / "site", "index.html")
    assert "reroll keep" in browser.run("document.getElementById('summary').textContent")
    _open(browser, tmp_path / "site", "round.html")
    assert "No solved round" in browser.run("document.getElementById('content').textContent")


def test_without_chromium_the_browser_tests_skip_but_fail_on_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception):
        _need_chromium(None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        _need_chromium(None)
    assert _need_chromium("/usr/bin/chromium") == "/usr/bin/chromium"


def test_package_data_ships_every_template():
    import tomllib

    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["solver.export"]
    folder = ROOT / "solver" / "export"
    templates = {p.relative_to(folder) for p in (folder / "site_files").iterdir()}
    shipped = {p.relative_to(folder) for pattern in patterns for p in folder.glob(pattern)}
    assert templates and templates == shipped


@pytest.mark.parametrize("edit, words", [
    (lambda states: states[:3], "48 of its 51 states are missing (first 0,2,7)"),
    (lambda states: states + states[:1], "a state is listed twice"),
    (lambda states: [{**states[0], "lower": "zzz"}] + states[1:], "missing or malformed"),
    (lambda states: [{**states[0], "lower": "2", "upper": "3"}] + states[1:],
     "outside its proved interval"),
])
def test_a_round_report_with_states_missing_or_twice_is_refused(edit, words):
    """A hand-edited round.json short of states raised KeyError deep in the map's stakes
    (a traceback); one listing a state twice was drawn."""
    from solver.export.site import check_round
    from solver.hand.strategy import StrategyFileError

    report = json.loads((OUTPUTS / "round" / "round.json").read_text())
    check_round("round.json", report)
    report["states"] = edit(report["states"])
    with pytest.raises(StrategyFileError, match=re.escape(words)):
        check_round("round.json", report)


@pytest.mark.slow
def test_a_round_file_that_is_a_fifo_or_a_folder_is_left_out_with_a_note(tmp_path):
    """Left out in silence before: the page said no round was solved, as if none were."""
    from solver.app.outputs import VARIANTS

    root = tmp_path / "root"
    for name in VARIANTS:                     # the published hands, as they are
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).symlink_to(OUTPUTS / name)
    (root / "round").mkdir()
    os.mkfifo(root / "round" / "round.json")
    (root / "round-keep" / "round.json").mkdir(parents=True)
    result = CliRunner().invoke(main, ["site", "--root", str(root), "--out",
                                       str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    notes = [line for line in result.output.splitlines() if line.startswith("bidou: note:")]
    assert notes == [
        f"bidou: note: {root}/round/round.json is a FIFO, not a regular file: left out of "
        "round.html",
        f"bidou: note: {root}/round-keep/round.json is a folder, not a regular file: left "
        "out of round.html"]


@pytest.mark.parametrize("args, message", [
    (["--out", ""], "cannot write into ''"),
    (["--out", "{tmp}/f/sub"], "is not a folder"),
    (["--root", "{tmp}/bad", "--out", "{tmp}/site"], "not a bidou-round file"),
    (["--root", "{tmp}/missing", "--out", "{tmp}/site"], "does not exist"),
    (["--root", "{tmp}/edited", "--out", "{tmp}/site"], "edited/keep/strategy.json: "),
    (["--faces", "7", "--out", "{tmp}/site"], "--faces must be"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    (tmp_path / "f").write_text("a file")
    (tmp_path / "bad" / "round").mkdir(parents=True)
    (tmp_path / "bad" / "round" / "round.json").write_text('{"schema": "other"}')
    (tmp_path / "edited" / "keep").mkdir(parents=True)     # a hand-edited published file
    document = json.loads((OUTPUTS / "keep" / "strategy.json").read_text())
    document["betting"][0]["probabilities"][0][0] = 2.0
    (tmp_path / "edited" / "keep" / "strategy.json").write_text(json.dumps(document))
    result = CliRunner().invoke(main, ["site"] + [a.format(tmp=tmp_path) for a in args])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bidou: error: ") and message in lines[0]
    assert not (tmp_path / "site").exists()
