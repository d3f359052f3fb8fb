#!/usr/bin/env python3
"""Drives the Folio editor in headless Chromium, as a person would, and checks the file on disk.

`make test-editor` runs it. It starts the built `folio-editor` on a temporary copy of the
Expenses sample, starts Chromium with the DevTools protocol on a pipe (fd 3 in, fd 4 out, JSON
messages ending in a NUL byte: no WebSocket and no package beyond Python's own), and in two tabs:

  1. types a bad amount and sees the error naming Spending.amount;
  2. edits an amount, undoes it and redoes it, checking the buttons' labels;
  3. saves, and finds the new amount in the file;
  4. opens a second tab (a second context), edits and saves there, and sees the first tab's
     table update live; changes one amount in both tabs, and the tab that saves last wins;
     then inserts a row in the second tab, saves, and sees it appear in the first;
  5. deletes that row in the first tab and undoes the deletion;
  6. checks the file holds every saved value;
  7. copies two rows in the first tab, whose Paste button the second tab's follows at once
     (the clipboard is the server's), pastes them in the second tab as one undo group with
     their person kept, undoes and redoes the paste, duplicates a row there (the clipboard
     keeping what was copied), saves, and finds the copies in the first tab and in the file.

Then it runs two editor processes on one document, a copy of the sample, and with --postgres
again on a PostgreSQL document made from the sample with Folio's CLI (--folio): a tab of each
process edits, inserts and deletes, saves, and sees what the other process saved appear live,
keeping its own unsaved change; the document read back (for PostgreSQL, converted to XML with
the CLI) holds every saved value.

Screenshots of each step go to the screenshots folder. Any failure exits 1; the servers and the
browser are stopped on the way out.
"""

import argparse
import base64
import json
import os
import queue
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import xml.etree.ElementTree as ElementTree

TIMEOUT = 15


class Failure(Exception):
    pass


class Browser:
    """Chromium with the DevTools protocol on a pipe."""

    def __init__(self, executable, profile):
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()

        def give_pipes():
            into, out = os.dup(to_browser_read), os.dup(from_browser_write)
            os.dup2(into, 3)
            os.dup2(out, 4)

        self.process = subprocess.Popen(
            [
                executable, "--headless=new", "--remote-debugging-pipe", "--no-sandbox",
                "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--no-default-browser-check", "--hide-scrollbars", "--window-size=1000,700",
                f"--user-data-dir={profile}", "about:blank",
            ],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=False,
            preexec_fn=give_pipes)
        os.close(to_browser_read)
        os.close(from_browser_write)
        self.next_id = 0
        self.replies = {}
        self.events = queue.Queue()
        self.lock = threading.Condition()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        buffer = b""
        while True:
            chunk = os.read(self.from_browser, 65536)
            if not chunk:
                with self.lock:
                    self.replies[None] = {"error": {"message": "the browser closed the pipe"}}
                    self.lock.notify_all()
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                if "id" in message:
                    with self.lock:
                        self.replies[message["id"]] = message
                        self.lock.notify_all()
                else:
                    self.events.put(message)

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.time() + TIMEOUT
        with self.lock:
            while self.next_id not in self.replies and None not in self.replies:
                if not self.lock.wait(timeout=max(0, deadline - time.time())):
                    raise Failure(f"no answer from the browser to {method}")
            reply = self.replies.pop(self.next_id, None) or self.replies[None]
        if "error" in reply:
            raise Failure(f"{method}: {reply['error'].get('message')}")
        return reply.get("result", {})

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Tab:
    """One browser tab on the editor."""

    def __init__(self, browser, url, name):
        self.browser = browser
        self.name = name
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.send(
            "Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": 1000, "height": 700, "deviceScaleFactor": 1, "mobile": False})
        self.send("Page.enable")
        self.send("Runtime.enable")
        self.send("Page.navigate", {"url": url})
        self.wait_for("document.body && document.body.dataset.ready === 'true'", "the page loads")

    def send(self, method, params=None):
        return self.browser.send(method, params, self.session)

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {
            "expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise Failure(f"{self.name}: {expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, what):
        deadline = time.time() + TIMEOUT
        while time.time() < deadline:
            if self.evaluate(expression):
                return
            time.sleep(0.1)
        raise Failure(f"{self.name}: timed out waiting until {what} ({expression})")

    def click(self, selector):
        """A real mouse click at the middle of the element `selector` finds, in front."""
        self.send("Page.bringToFront")
        box = self.evaluate(f"""(() => {{
            const element = {selector};
            element.scrollIntoView({{block: "center"}});
            const box = element.getBoundingClientRect();
            return [box.x + box.width / 2, box.y + box.height / 2];
        }})()""")
        if not box:
            raise Failure(f"{self.name}: nothing to click at {selector}")
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {
                "type": kind, "x": box[0], "y": box[1], "button": "left", "clickCount": 1})

    def key(self, key, code, key_code):
        for kind in ("keyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", {
                "type": kind, "key": key, "code": code, "windowsVirtualKeyCode": key_code})

    def type_into(self, selector, text):
        """Clicks a cell, selects what it holds, types `text` and presses Enter."""
        self.click(selector)
        self.evaluate(f"{selector}.select()")
        self.send("Input.insertText", {"text": text})
        self.key("Enter", "Enter", 13)

    def screenshot(self, path):
        self.send("Page.bringToFront")
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as file:
            file.write(base64.b64decode(data))
        print(f"  screenshot {os.path.basename(path)}")


def cell(content, key):
    """The JS expression for the input of attribute `key` in the row whose content is given."""
    return (f"[...document.querySelectorAll('tbody tr')].find(tr => "
            f"tr.querySelector('input[data-key=content]').value === {json.dumps(content)})"
            f".querySelector('input[data-key={key}]')")


def row_button(content, label):
    return (f"[...document.querySelectorAll('tbody tr')].find(tr => "
            f"tr.querySelector('input[data-key=content]').value === {json.dumps(content)})"
            f".querySelector('button.{label}')")


def has_value(content, key, value):
    return (f"(() => {{ try {{ return {cell(content, key)}.value === {json.dumps(value)} }} "
            f"catch (e) {{ return false }} }})()")


def select_box(content):
    """The JS expression for the selection box of the first row whose content is given."""
    return (f"[...document.querySelectorAll('tbody tr')].find(tr => "
            f"tr.querySelector('input[data-key=content]').value === {json.dumps(content)})"
            f".querySelector('input.select')")


def row_count(content, count):
    return (f"[...document.querySelectorAll('tbody tr input[data-key=content]')]"
            f".filter(i => i.value === {json.dumps(content)}).length === {count}")


def same_person(content):
    """Whether the two rows of `content` show one person, not none."""
    return (f"(() => {{ const people = [...document.querySelectorAll('tbody tr')]"
            f".filter(tr => tr.querySelector('input[data-key=content]').value === "
            f"{json.dumps(content)}).map(tr => tr.querySelector('td.link').textContent); "
            f"return people.length === 2 && people[0] === people[1] && people[0] !== '—' }})()")


def has_row(content):
    return (f"[...document.querySelectorAll('tbody tr input[data-key=content]')]"
            f".some(i => i.value === {json.dumps(content)})")


def button_is(button, text, enabled=True):
    return (f"document.getElementById('{button}').textContent === {json.dumps(text)} && "
            f"document.getElementById('{button}').disabled === {json.dumps(not enabled)}")


def spendings_on_disk(path):
    """Each Spending in the XML store, content to amount."""
    root = ElementTree.parse(path).getroot()
    found = {}
    for element in root.iter("object"):
        if element.get("type") != "SPENDING":
            continue
        values = {a.get("name"): a.text for a in element.iter("attribute")}
        found[values.get("content")] = float(values.get("amount") or 0)
    return found


def spending_counts(path):
    """How many Spendings of each content the XML store holds."""
    root = ElementTree.parse(path).getroot()
    counts = {}
    for element in root.iter("object"):
        if element.get("type") == "SPENDING":
            values = {a.get("name"): a.text for a in element.iter("attribute")}
            counts[values.get("content")] = counts.get(values.get("content"), 0) + 1
    return counts


def step(text):
    print(f"- {text}")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_server(url, server):
    deadline = time.time() + TIMEOUT
    while time.time() < deadline:
        if server.poll() is not None:
            raise Failure(f"the editor exited with status {server.returncode} before serving")
        try:
            with urllib.request.urlopen(url + "api/model", timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise Failure("the editor did not answer")


def start_editor(arguments, store, model, folder, name):
    """Starts folio-editor on `store` on a free port; returns the process and its page's URL."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    server = subprocess.Popen(
        [arguments.editor, store, "--model", model, "--port", str(port),
         "--watch-interval", "100"],
        stdout=open(os.path.join(folder, f"{name}.log"), "w"), stderr=subprocess.STDOUT)
    try:
        wait_for_server(url, server)
    except Failure:
        stop(server)
        raise
    return server, url


def stop(server):
    server.terminate()
    try:
        server.wait(timeout=5)
    except subprocess.TimeoutExpired:
        server.kill()


def settle(tab):
    """Waits until `tab` has heard nothing on its live channel for half a second: a live event
    can reload the table, dropping what is being typed into it."""
    deadline = time.time() + TIMEOUT
    last, quiet_since = None, time.time()
    while time.time() < deadline:
        heard = tab.evaluate("document.body.dataset.live || '0'")
        if heard != last:
            last, quiet_since = heard, time.time()
        elif time.time() - quiet_since >= 0.5:
            return
        time.sleep(0.1)
    raise Failure(f"{tab.name}: its live channel did not settle")


def edit(tab, content, key, text):
    """Types `text` into a cell once the tab's table has settled, and waits until it holds."""
    settle(tab)
    tab.type_into(cell(content, key), text)
    holds = has_row(text) if key == "content" else has_value(content, key, text)
    tab.wait_for(holds, f"{tab.name} holds {content}.{key} = {text}")


def saved(tab):
    tab.click("document.getElementById('save')")
    tab.wait_for("document.getElementById('status').textContent === 'Saved'",
                 f"{tab.name} is saved")


def heard_other_process(tab, times):
    """Whether `tab` logged `times` merges of another process's save."""
    return (f"document.getElementById('log').textContent"
            f".split('Another process saved').length > {times}")


def run_two_processes(arguments, folder, store, read_back, shot=None):
    """Two editor processes on `store`, a tab in each: what one saves shows in the other live.

    `read_back` gives each Spending in the document, content to amount, once the tabs saved.
    """
    model = os.path.join(arguments.sample, "Expenses.xcdatamodeld")
    first, first_url = start_editor(arguments, store, model, folder, "process-a")
    servers = [first]
    browser = None
    try:
        second, second_url = start_editor(arguments, store, model, folder, "process-b")
        servers.append(second)
        print(f"two editors on {store}: {first_url} (A) and {second_url} (B)")
        browser = Browser(arguments.chromium, os.path.join(folder, "profile-two"))
        a = Tab(browser, first_url, "process A's tab")
        b = Tab(browser, second_url, "process B's tab")
        for tab in (a, b):
            tab.wait_for("document.getElementById('live').textContent === 'live: on'",
                         f"{tab.name} listens")
        notes, gears, cards, tea = ("Notes on the Analytical Engine", "Brass gears",
                                    "Punched cards", "Tea")

        step("process A edits and saves; process B's tab shows it live")
        edit(a, gears, "amount", "260")
        a.wait_for(button_is("undo", "Undo Edit Spending.amount"), "A can undo the edit")
        saved(a)
        b.wait_for(has_value(gears, "amount", "260"), "B shows A's amount live")
        b.wait_for(heard_other_process(b, 1), "B tells of the other process's save")
        if shot:
            b.screenshot(shot("10-other-process.png"))

        step("process B inserts a spending and saves; it appears in process A's tab")
        loom = "Jacquard loom"
        b.click("document.getElementById('insert')")
        b.wait_for(button_is("undo", "Undo Insert Spending"), "Undo names the insert")
        edit(b, "", "content", loom)
        edit(b, loom, "amount", "42")
        saved(b)
        a.wait_for(has_row(loom) + " && " + has_value(loom, "amount", "42"),
                   "A shows B's new row live")
        a.wait_for(heard_other_process(a, 1), "A tells of the other process's save")

        step("each changes another amount; A saves, and B keeps its unsaved change")
        edit(b, notes, "amount", "11.25")
        b.wait_for("document.getElementById('status').textContent === 'Edited'", "B is edited")
        edit(a, cards, "amount", "38")
        saved(a)
        b.wait_for(has_value(cards, "amount", "38"), "B shows A's second amount live")
        b.wait_for(has_value(notes, "amount", "11.25"), "B keeps its unsaved change")
        b.wait_for("document.getElementById('status').textContent === 'Edited'",
                   "B is still edited")
        saved(b)
        a.wait_for(has_value(notes, "amount", "11.25"), "A shows B's amount live")

        step("process A deletes a spending and saves; it leaves process B's tab")
        settle(a)
        a.click(row_button(tea, "delete"))
        a.wait_for(f"!({has_row(tea)})", "the row is gone in A")
        saved(a)
        b.wait_for(f"!({has_row(tea)})", "the row leaves B live")

        step("the document holds what both processes saved")
        on_disk = read_back()
        expected = {notes: 11.25, gears: 260.0, cards: 38.0, loom: 42.0}
        for content, amount in expected.items():
            if on_disk.get(content) != amount:
                raise Failure(f"the document holds {on_disk.get(content)} for {content}, "
                              f"not {amount}")
        if tea in on_disk:
            raise Failure(f"the document still holds {tea}, which process A deleted")
        print("  " + ", ".join(f"{content} = {on_disk[content]:g}" for content in expected) +
              f"; no {tea}")
    finally:
        if browser:
            browser.close()
        for server in servers:
            stop(server)


def run_postgres(arguments, folder, shot):
    """The two processes on a PostgreSQL document made from the sample with Folio's CLI."""
    base = arguments.postgres
    schema = f"editor_{os.getpid()}_{int(time.time())}"
    document = base + ("&" if "?" in base else "?") + "schema=" + schema
    model = os.path.join(arguments.sample, "Expenses.xcdatamodeld")
    convert = [arguments.folio, "convert", "--model", model]
    result = subprocess.run(
        convert + [os.path.join(arguments.sample, "Expenses.xml"), document],
        capture_output=True, text=True)
    if result.returncode != 0:
        raise Failure(f"folio convert into {document} failed: {result.stderr.strip()}")
    print(f"made {document} from the sample with folio convert")

    def read_back():
        out = os.path.join(folder, "from-postgres.xml")
        result = subprocess.run(convert + [document, out], capture_output=True, text=True)
        if result.returncode != 0:
            raise Failure(f"folio convert {document} back failed: {result.stderr.strip()}")
        return spendings_on_disk(out)

    try:
        run_two_processes(arguments, folder, document, read_back, shot)
    finally:
        # The document's schema goes with psql where there is one; a throwaway cluster goes
        # whole anyway.
        if shutil.which("psql"):
            subprocess.run(["psql", "-q", "-d", base, "-c",
                            f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'],
                           capture_output=True)


def run(arguments, folder):
    store = os.path.join(folder, "Expenses.xml")
    shutil.copyfile(os.path.join(arguments.sample, "Expenses.xml"), store)
    model = os.path.join(arguments.sample, "Expenses.xcdatamodeld")
    os.makedirs(arguments.screenshots, exist_ok=True)
    shot = lambda name: os.path.join(arguments.screenshots, name)
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    server = subprocess.Popen(
        [arguments.editor, store, "--model", model, "--port", str(port)],
        stdout=open(os.path.join(folder, "server.log"), "w"), stderr=subprocess.STDOUT)
    browser = None
    try:
        wait_for_server(url, server)
        print(f"editor on {url} serving a copy of the sample, {store}")
        browser = Browser(arguments.chromium, os.path.join(folder, "profile"))
        first = Tab(browser, url, "tab 1")

        notes, gears = "Notes on the Analytical Engine", "Brass gears"
        step("a bad amount is refused, naming Spending.amount")
        first.type_into(cell(gears, "amount"), "lots")
        first.wait_for("document.getElementById('error').textContent === "
                       "'Spending.amount: \"lots\" is not a Double value'", "the error shows")
        first.wait_for(f"{cell(gears, 'amount')}.classList.contains('bad')", "the cell is marked")
        first.screenshot(shot("1-bad-value.png"))
        first.click("document.querySelector('#entities button.current')")
        first.wait_for(has_value(gears, "amount", "240"), "the table shows the amount again")

        step("edit an amount: one undo group named Edit Spending.amount")
        first.type_into(cell(notes, "amount"), "99.5")
        first.wait_for(button_is("undo", "Undo Edit Spending.amount"), "Undo names the edit")
        first.wait_for(button_is("redo", "Redo", enabled=False), "Redo is off")
        first.wait_for("document.getElementById('status').textContent === 'Edited'",
                       "the tab is edited")
        first.screenshot(shot("2-edited.png"))

        step("undo puts the old amount back")
        first.click("document.getElementById('undo')")
        first.wait_for(has_value(notes, "amount", "12.5"), "the amount is 12.5 again")
        first.wait_for(button_is("redo", "Redo Edit Spending.amount"), "Redo names the edit")
        first.wait_for(button_is("undo", "Undo", enabled=False), "Undo is off")
        first.screenshot(shot("3-undone.png"))

        step("redo applies it again")
        first.click("document.getElementById('redo')")
        first.wait_for(has_value(notes, "amount", "99.5"), "the amount is 99.5 again")
        first.wait_for(button_is("undo", "Undo Edit Spending.amount"), "Undo names the edit")

        step("save writes the file")
        first.click("document.getElementById('save')")
        first.wait_for("document.getElementById('status').textContent === 'Saved'",
                       "the tab is saved")
        on_disk = spendings_on_disk(store)
        if on_disk.get(notes) != 99.5:
            raise Failure(f"the file holds {on_disk.get(notes)} for {notes}, not 99.5")

        step("a second tab reads the saved file in its own context")
        second = Tab(browser, url, "tab 2")
        second.wait_for(has_value(notes, "amount", "99.5"), "tab 2 shows the saved amount")
        first.wait_for("document.getElementById('live').textContent === 'live: on'",
                       "tab 1 listens")

        step("tab 2 edits and saves; tab 1 updates live")
        second.type_into(cell(gears, "amount"), "250")
        second.wait_for(button_is("undo", "Undo Edit Spending.amount"), "tab 2 can undo it")
        first.wait_for(button_is("undo", "Undo Edit Spending.amount"), "tab 1 keeps its undo")
        second.click("document.getElementById('save')")
        second.wait_for("document.getElementById('status').textContent === 'Saved'",
                        "tab 2 is saved")
        first.wait_for(has_value(gears, "amount", "250"), "tab 1 shows tab 2's amount live")
        first.wait_for("document.getElementById('log').textContent.includes('Tab t2 saved')",
                       "tab 1 tells of the save")
        first.screenshot(shot("4-live-update.png"))
        second.screenshot(shot("5-second-tab.png"))

        step("both tabs change one amount; the tab saving last wins (object-trump)")
        cards = "Punched cards"
        first.type_into(cell(cards, "amount"), "36")
        first.wait_for(has_value(cards, "amount", "36"), "tab 1 holds its change")
        second.type_into(cell(cards, "amount"), "37")
        second.click("document.getElementById('save')")
        second.wait_for("document.getElementById('status').textContent === 'Saved'",
                        "tab 2 is saved")
        first.wait_for("document.getElementById('log').textContent.split('Tab t2 saved')"
                       ".length === 3", "tab 1 merges tab 2's second save")
        first.wait_for(has_value(cards, "amount", "36"), "tab 1 keeps its unsaved change")
        first.click("document.getElementById('save')")
        first.wait_for("document.getElementById('status').textContent === 'Saved'",
                       "tab 1 is saved")
        second.wait_for(has_value(cards, "amount", "36"), "tab 2 shows tab 1's amount live")

        step("tab 2 inserts a spending and saves; it appears in tab 1")
        engine = "Difference engine"
        second.click("document.getElementById('insert')")
        second.wait_for(button_is("undo", "Undo Insert Spending"), "Undo names the insert")
        second.type_into(cell("", "content"), engine)
        second.wait_for(has_row(engine), "tab 2 shows the new row")
        second.click("document.getElementById('save')")
        second.wait_for("document.getElementById('status').textContent === 'Saved'",
                        "tab 2 is saved")
        first.wait_for(has_row(engine), "tab 1 shows tab 2's new row live")

        step("tab 1 deletes it, and undoes the deletion")
        first.click(row_button(engine, "delete"))
        first.wait_for(f"!({has_row(engine)})", "the row is gone")
        first.wait_for(button_is("undo", "Undo Delete Spending"), "Undo names the deletion")
        first.screenshot(shot("6-deleted.png"))
        first.click("document.getElementById('undo')")
        first.wait_for(has_row(engine), "the row is back")
        first.wait_for(button_is("redo", "Redo Delete Spending"), "Redo names the deletion")

        step("the file holds what the tabs saved")
        on_disk = spendings_on_disk(store)
        expected = {notes: 99.5, gears: 250.0, cards: 36.0, engine: 0.0}
        for content, amount in expected.items():
            if on_disk.get(content) != amount:
                raise Failure(f"the file holds {on_disk.get(content)} for {content}, not {amount}")
        print(f"  {os.path.basename(store)}: " + ", ".join(
            f"{content} = {on_disk[content]:g}" for content in expected))

        step("tab 1 copies two rows; tab 2's Paste names them at once")
        first.click(select_box(cards))
        first.click(select_box(gears))
        first.wait_for("!document.getElementById('copy').disabled", "Copy is on")
        first.click("document.getElementById('copy')")
        first.wait_for(button_is("paste", "Paste 2 Spending"), "tab 1's Paste names the rows")
        second.wait_for(button_is("paste", "Paste 2 Spending"), "tab 2 hears of the copy")
        second.wait_for("document.getElementById('log').textContent"
                        ".includes('Tab t1 copied 2 Spending')", "tab 2 tells of the copy")
        first.screenshot(shot("7-copied.png"))

        step("tab 2 pastes them: one undo group, each copy keeping its person")
        second.click("document.getElementById('paste')")
        second.wait_for(row_count(cards, 2) + " && " + row_count(gears, 2), "the copies show")
        second.wait_for(button_is("undo", "Undo Paste Spending"), "Undo names the paste")
        second.wait_for(same_person(cards) + " && " + same_person(gears),
                        "each copy has the original's person")
        second.screenshot(shot("8-pasted.png"))
        second.click("document.getElementById('undo')")
        second.wait_for(row_count(cards, 1) + " && " + row_count(gears, 1), "the copies go")
        second.wait_for(button_is("redo", "Redo Paste Spending"), "Redo names the paste")
        second.click("document.getElementById('redo')")
        second.wait_for(row_count(cards, 2) + " && " + row_count(gears, 2), "the copies return")

        step("tab 2 duplicates a row; the clipboard keeps what tab 1 copied")
        second.click(select_box(engine))
        second.wait_for("!document.getElementById('duplicate').disabled", "Duplicate is on")
        second.click("document.getElementById('duplicate')")
        second.wait_for(row_count(engine, 2), "the duplicate shows")
        second.wait_for(button_is("undo", "Undo Duplicate Spending"), "Undo names it")
        second.wait_for(button_is("paste", "Paste 2 Spending"), "Paste still names the copy")
        second.screenshot(shot("9-duplicated.png"))

        step("tab 2 saves; tab 1 shows the copies live, and the file holds them")
        second.click("document.getElementById('save')")
        second.wait_for("document.getElementById('status').textContent === 'Saved'",
                        "tab 2 is saved")
        first.wait_for(row_count(cards, 2) + " && " + row_count(gears, 2) + " && " +
                       row_count(engine, 2), "tab 1 shows the copies live")
        counts = spending_counts(store)
        for content in (cards, gears, engine):
            if counts.get(content) != 2:
                raise Failure(f"the file holds {counts.get(content)} {content}, not 2")
        print(f"  {os.path.basename(store)}: two each of {cards}, {gears} and {engine}")
    finally:
        if browser:
            browser.close()
        server.terminate()
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--editor", required=True, help="the built folio-editor")
    parser.add_argument("--sample", required=True, help="the Expenses sample folder")
    parser.add_argument("--screenshots", required=True, help="where the screenshots go")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    parser.add_argument("--postgres", help="a PostgreSQL database URL, without a schema: two "
                        "editor processes then also edit a document made there")
    parser.add_argument("--folio", help="Folio's CLI, which makes the PostgreSQL document and "
                        "reads it back")
    parser.add_argument("--two-processes-only", action="store_true",
                        help="skip the one-process test of two tabs")
    arguments = parser.parse_args()
    if arguments.postgres and not arguments.folio:
        parser.error("--postgres needs --folio, the CLI that makes the document")
    folder = tempfile.mkdtemp(prefix="folio-editor-test-")
    shot = lambda name: os.path.join(arguments.screenshots, name)
    os.makedirs(arguments.screenshots, exist_ok=True)
    try:
        if not arguments.two_processes_only:
            run(arguments, folder)
        step("two editor processes on one file")
        store = os.path.join(folder, "Shared.xml")
        shutil.copyfile(os.path.join(arguments.sample, "Expenses.xml"), store)
        run_two_processes(arguments, folder, store, lambda: spendings_on_disk(store),
                          None if arguments.postgres else shot)
        if arguments.postgres:
            step("two editor processes on one PostgreSQL document")
            run_postgres(arguments, folder, shot)
    except Failure as failure:
        print(f"browser test failed: {failure}", file=sys.stderr)
        for name in ("server", "process-a", "process-b"):
            log = os.path.join(folder, f"{name}.log")
            if os.path.exists(log):
                print(f"{name} log:\n" + open(log).read(), file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print("browser test passed: " +
          ("" if arguments.two_processes_only else "edit, undo, redo, save, two tabs, merge, "
           "insert, delete, copy, paste, duplicate; ") + "two processes on one file" +
          ("; two processes on one PostgreSQL document" if arguments.postgres else
           " (PostgreSQL SKIPPED: no --postgres)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
