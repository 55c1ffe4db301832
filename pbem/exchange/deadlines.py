"""Deadlines (docs/protocol.md, Deadlines): the time each awaited step is due, checked by every reader.

A game created with deadline options records the time allowed per kind of step and a grace period
in its state's ``deadlines`` table (whole hours). Every awaiting state then carries, in ``awaits``,
the time the step was set (``since``: the adjudicator's time when he sealed it) and its deadline
(``due``), both UTC text in one spelling, ``YYYY-MM-DDTHH:MMZ``. The time is an input (``--now``)
and is recorded: nothing here reads a clock, so the same files give the same bytes.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any

from pbem.errors import IllegalOrdersError, Problem, TamperError, UsageError

KINDS = ("join", "orders", "reply", "reveal")  # the kinds of step a deadline applies to
DEFAULTS = {"join": 168, "orders": 72, "reply": 48, "reveal": 48, "grace": 24}  # hours, when an option leaves one out
MAX_HOURS = 24 * 366  # a year: a longer allowance is a typing error
RULE = "deadlines"  # the rule a deadline problem names (docs/protocol.md, Deadlines)
OPTION_PREFIX = "deadline."

_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}Z")
_DURATION = re.compile(r"([1-9][0-9]{0,4}|0)([hd])")


def parse_time(text: str, where: str) -> _dt.datetime:
    """A time in its one spelling, ``YYYY-MM-DDTHH:MMZ`` (UTC, to the minute), or UsageError."""
    if not isinstance(text, str) or not _TIME.fullmatch(text):
        raise UsageError(f"{where}: '{text}' is not a UTC time written YYYY-MM-DDTHH:MMZ (e.g. 2026-12-02T10:00Z)",
                         hint="Times have one spelling: UTC, to the minute, with the Z.")
    try:
        t = _dt.datetime.strptime(text, "%Y-%m-%dT%H:%MZ").replace(tzinfo=_dt.UTC)
    except ValueError as e:
        raise UsageError(f"{where}: '{text}' is not a date and time of the calendar") from e
    return t


def format_time(t: _dt.datetime) -> str:
    return t.astimezone(_dt.UTC).strftime("%Y-%m-%dT%H:%MZ")


def is_time(text: Any) -> bool:
    try:
        parse_time(text, "")
    except UsageError:
        return False
    return True


def clock_now() -> str:
    """The machine's clock, to the minute: read only at the command line's edge (``--now``'s default)."""
    return format_time(_dt.datetime.now(_dt.UTC))


def parse_duration(text: str, where: str) -> int:
    """A duration given on the command line, ``72h`` or ``3d``, in whole hours."""
    m = _DURATION.fullmatch(text.strip())
    if m is None:
        raise UsageError(f"{where}: '{text}' is not a duration in whole hours or days (72h, 3d)")
    hours = int(m.group(1)) * (24 if m.group(2) == "d" else 1)
    if hours > MAX_HOURS:
        raise UsageError(f"{where}: {hours} hours is more than a year")
    return hours


def split_options(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, int] | None]:
    """The game's own options and the deadline options (``deadline.KIND=DURATION``, KIND one of
    join, orders, reply, reveal, grace; ``deadlines=on`` for the defaults): None when there are none."""
    rest = {k: v for k, v in options.items() if not k.startswith(OPTION_PREFIX) and k != "deadlines"}
    given = {k[len(OPTION_PREFIX):]: v for k, v in options.items() if k.startswith(OPTION_PREFIX)}
    switch = options.get("deadlines")
    if switch not in (None, True, "on"):
        raise UsageError(f"--option deadlines={switch}: write deadlines=on (or give deadline.KIND=DURATION options)")
    if not given and switch is None:
        return rest, None
    out = dict(DEFAULTS)
    for k, v in sorted(given.items()):
        if k not in DEFAULTS:
            raise UsageError(f"--option deadline.{k}: no such deadline; the kinds are {', '.join(DEFAULTS)}")
        out[k] = parse_duration(str(v), f"--option deadline.{k}")
        if k != "grace" and out[k] == 0:
            raise UsageError(f"--option deadline.{k}: a step needs some time (at least 1h)")
    return rest, out


def hours(deadlines: dict[str, Any], kind: str) -> int:
    return int(deadlines[kind])


def add_hours(t: str, n: int, where: str = "time") -> str:
    """``t`` plus ``n`` hours, or UsageError (naming ``where``) past the calendar's last year, 9999."""
    try:
        return format_time(parse_time(t, where) + _dt.timedelta(hours=n))
    except OverflowError as e:
        raise UsageError(f"{where}: {t} plus {n}h is past the end of the calendar (the year 9999)") from e


def grace_until(state: dict[str, Any], where: str = "awaits.due") -> str:
    """When the grace period of the awaited step ends."""
    return add_hours(str(state["awaits"]["due"]), hours(state["deadlines"], "grace"), where)


def step_times(deadlines: dict[str, Any], kind: str, now: str) -> dict[str, str]:
    """``since`` and ``due`` of a step of ``kind`` set at ``now`` (none for the end of the game)."""
    if kind == "none":
        return {}
    parse_time(now, "--now")
    due = add_hours(now, hours(deadlines, kind), "--now")
    add_hours(due, hours(deadlines, "grace"), "--now")  # its grace period ends within the calendar too
    return {"since": now, "due": due}


def state_problems(data: dict[str, Any], where: str) -> list[Problem]:
    """What every reader checks of a state's or view's deadline: present in every awaiting state of a
    game with deadlines (absent otherwise), in its one spelling, and not shorter than the game's
    options allow (a state set by an agreement of every player keeps the agreed deadline, checked by
    the replay). Problems of spelling and presence: the file is malformed."""
    aw = data["awaits"]
    d = data.get("deadlines")
    out: list[Problem] = []
    if d is None:
        out += [Problem(f"{where}: awaits.{k}", "a game without deadline options has no deadline", RULE)
                for k in ("since", "due") if k in aw]
        return out
    if aw["kind"] == "none":
        out += [Problem(f"{where}: awaits.{k}", "the game awaits nothing: no deadline", RULE) for k in ("since", "due") if k in aw]
        return out
    for k in ("since", "due"):
        if k not in aw:
            out.append(Problem(f"{where}: awaits.{k}", "every awaiting state of a game with deadlines carries it", RULE))
        elif not is_time(aw[k]):
            out.append(Problem(f"{where}: awaits.{k}", f"'{aw[k]}' is not a UTC time written YYYY-MM-DDTHH:MMZ", RULE))
    if out:
        return out
    ends = [(str(aw["since"]), d.get(str(aw["kind"])), "since"), (str(aw["due"]), d.get("grace"), "due")]
    for t, n, k in ends:  # the step's least deadline and its grace period's end are times of the calendar
        n = n if isinstance(n, int) else 0
        try:
            parse_time(t, k) + _dt.timedelta(hours=n)
        except OverflowError:
            out.append(Problem(f"{where}: awaits.{k}", f"{t} plus {n}h is past the end of the calendar (the year 9999)", RULE))
    tr = data.get("transition", {})
    if int(data["pbem"]["sequence"]) > 0 and not is_time(tr.get("at")):
        out.append(Problem(f"{where}: transition.at", "every state after the first of a game with deadlines records the "
                                                      "time of its adjudication, YYYY-MM-DDTHH:MMZ", RULE))
    return out


def check_allowance(data: dict[str, Any], where: str) -> None:
    """The deadline an adjudicator wrote is not shorter than the allowances the state records for the
    kind of step, and the step's start is the time of the adjudication that set it (``transition.at``;
    an agreement keeps the start, and is not earlier than it): exit 3, a sealed state that takes time
    from the awaited side. That the allowances are the game's (its options and agreements since) is
    the replay's to check."""
    d, aw, tr = data.get("deadlines"), data["awaits"], data.get("transition", {})
    if d is None or aw["kind"] == "none":
        return
    if int(data["pbem"]["sequence"]) > 0:
        agreed = "agreed" in tr
        at, since = parse_time(str(tr["at"]), where), parse_time(str(aw["since"]), where)
        if at < since if agreed else at != since:
            raise TamperError(f"{where}: awaits.since {aw['since']} is " + (
                "later than the agreement that kept it (transition.at " if agreed else
                "not the time of the adjudication that set the step (transition.at ") + f"{tr['at']})",
                [Problem(f"{where}: awaits.since", f"{'after' if agreed else 'not'} transition.at {tr['at']}", RULE)],
                hint="A step is set by the adjudication that writes it: whoever sealed it moved the step's start "
                     "to change its deadline: do not accept it.")
        if agreed:  # an agreement keeps the step's start and sets the deadline the players signed (checked by the replay)
            return
    allowed = hours(d, str(aw["kind"]))
    least = add_hours(str(aw["since"]), allowed, f"{where}: awaits.since")
    if parse_time(str(aw["due"]), where) < parse_time(least, where):
        raise TamperError(f"{where}: awaits.due {aw['due']} is earlier than the game allows: the step was set at "
                          f"{aw['since']} and its options give {aw['kind']} {allowed}h (deadlines.{aw['kind']}), so it is due "
                          f"{least} at the earliest",
                          [Problem(f"{where}: awaits.due", f"shorter than deadlines.{aw['kind']} = {allowed}h allows", RULE)],
                          hint="Whoever sealed it set a deadline shorter than the game allows: do not accept it.")


def check_now(prev: dict[str, Any], now: str | None, where: str) -> str:
    """The time of an adjudication in a game with deadlines: given, in its one spelling, and not before
    the time the step was set (time does not go back)."""
    if now is None:
        raise UsageError(f"{where}: the game has deadlines: the adjudication needs its time (--now)")
    t = parse_time(now, "--now")
    marks = [(prev["awaits"].get("since"), "awaits.since", "was set"), (prev.get("transition", {}).get("at"), "transition.at",
                                                                         "was adjudicated")]
    for mark, field, what in marks:  # an agreement keeps the step's start: its own time is later
        if mark is not None and t < parse_time(str(mark), where):
            raise IllegalOrdersError(f"--now {now} is earlier than {where} {what} ({mark}, {field}): time does not go back",
                                     [Problem("--now", f"before {field} {mark}", RULE)],
                                     hint="Give the time it is now (UTC); pbem takes it from the clock when --now is left out.")
    return now


def check_missed(prev: dict[str, Any], now: str, sides: list[str], where: str) -> dict[str, str]:
    """A step may be adjudicated without the awaited sides' files only once its deadline and grace
    period have passed; returns what the next state records of it (``transition.missed``)."""
    until = grace_until(prev)
    if parse_time(now, "--now") < parse_time(until, where):
        raise IllegalOrdersError(
            f"--no-orders {', '.join(sides)}: {where} awaits {prev['awaits']['step']} until {prev['awaits']['due']} "
            f"(awaits.due) and its grace period of {hours(prev['deadlines'], 'grace')}h (deadlines.grace) runs until "
            f"{until}; it is {now}: the step cannot be adjudicated without {', '.join(sides)} yet",
            [Problem(f"{where}: awaits.due", f"grace until {until}, now {now}", RULE)],
            hint="Wait for the orders (`pbem mail remind` writes a reminder), or agree a pause with `pbem agree`.")
    return {"at": now, "due": str(prev["awaits"]["due"]), "grace_until": until}


def agreement_terms(terms: Any, where: str) -> dict[str, Any]:
    """An agreement's terms (``[agree]``): a new ``due`` for the awaited step (a pause) and/or new
    allowances (``deadlines``, whole hours), at least one."""
    if not isinstance(terms, dict) or not terms or set(terms) - {"due", "deadlines"}:
        raise UsageError(f"{where}: [agree] holds due and/or deadlines, and at least one of them")
    if "due" in terms:
        parse_time(terms["due"], f"{where}: agree.due")
    if "deadlines" in terms:
        d = terms["deadlines"]
        if not isinstance(d, dict) or not d or set(d) - set(DEFAULTS):
            raise UsageError(f"{where}: agree.deadlines names kinds of {', '.join(DEFAULTS)}")
        for k, v in d.items():
            if not isinstance(v, int) or isinstance(v, bool) or v < (0 if k == "grace" else 1) or v > MAX_HOURS:
                raise UsageError(f"{where}: agree.deadlines.{k}: whole hours, from {0 if k == 'grace' else 1} to {MAX_HOURS}")
    return terms


def status(state: dict[str, Any], now: str) -> dict[str, Any] | None:
    """When the awaited step is due and how it stands at ``now``: ``in-time`` (``left`` minutes),
    ``grace`` (``late`` minutes, within the grace period) or ``missed`` (past the grace period)."""
    aw = state["awaits"]
    if "due" not in aw or "deadlines" not in state:
        return None
    t = parse_time(now, "--now")
    due = parse_time(str(aw["due"]), "awaits.due")
    until = grace_until(state)
    minutes = int((t - due).total_seconds() // 60)
    stand = "in-time" if minutes <= 0 else "grace" if t < parse_time(until, "grace") else "missed"
    return {"since": aw["since"], "due": aw["due"], "grace_until": until, "now": now, "status": stand,
            "left": max(0, -minutes), "late": max(0, minutes)}


def span(minutes: int) -> str:
    """A number of minutes as people say it: 2d 3h 5m."""
    d, rest = divmod(minutes, 24 * 60)
    h, m = divmod(rest, 60)
    parts = [f"{d}d" if d else "", f"{h}h" if h else "", f"{m}m" if m or not (d or h) else ""]
    return " ".join(p for p in parts if p)


def status_line(info: dict[str, Any]) -> str:
    if info["status"] == "in-time":
        return f"due {info['due']}: {span(info['left'])} left (grace until {info['grace_until']})"
    if info["status"] == "grace":
        return f"due {info['due']}: late by {span(info['late'])}, within the grace period until {info['grace_until']}"
    return (f"due {info['due']}: late by {span(info['late'])}, past the grace period ({info['grace_until']}): "
            "the adjudicator may adjudicate the step without the late side (--no-orders)")
