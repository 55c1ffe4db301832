"""The ``pbem`` command (see the README): parse arguments, call the library, render, map errors to exit codes.

Exit codes: 0 ok; 1 orders illegal or verification failed; 2 usage error or unreadable/malformed
file; 3 signature, chain or commitment failure (tampering).
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from pbem import __version__
from pbem.errors import EXIT_ILLEGAL, EXIT_MALFORMED, PbemError, Problem, UsageError

F = TypeVar("F", bound=Callable[..., Any])


def _debug_enabled() -> bool:
    ctx = click.get_current_context(silent=True)
    while ctx is not None:
        if ctx.obj and ctx.obj.get("debug"):
            return True
        ctx = ctx.parent
    return False


def guarded(fn: F) -> F:
    """Turn PbemError (and any unexpected error) into one clear paragraph and its exit code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except PbemError as e:
            if _debug_enabled():
                raise
            if kwargs.get("as_json"):  # --json: the error as data on standard output (docs/json.md)
                echo_error(e)
            click.echo(f"pbem: {e.render()}", err=True)
            sys.exit(e.exit_code)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException, SystemExit, BrokenPipeError):
            raise
        except Exception as e:  # a bug: still no traceback unless --debug
            if _debug_enabled():
                raise
            message = f"internal error: {type(e).__name__}: {e}"
            hint = "Run again with --debug for a traceback, and report it."
            if kwargs.get("as_json"):
                echo_result({}, EXIT_MALFORMED, message, hint)
            click.echo(f"pbem: {message}\n{hint}", err=True)
            sys.exit(EXIT_MALFORMED)

    return wrapper  # type: ignore[return-value]


def result_text(r: dict[str, Any], reason: bool = True) -> str:
    """The line that ends a game: its winner, with the rule and the reason where the game gives them."""
    rule = f" ({r['rule']})" if r.get("rule") else ""
    why = f": {r['reason']}" if reason and r.get("reason") else ""
    return f"game over: the {r.get('winner', 'nobody')} wins{rule}{why}"


ORDER = ["keygen", "new", "join", "template", "check", "sign", "adjudicate", "agree", "status", "show", "hidden", "verify", "audit", "mail",
         "site", "games", "rules", "demo", "catalog", "module"]


class _Ordered(click.Group):
    """The commands in the order of a game: keygen, new, join, ... then the others. A command line
    with --json gets a usage error (an unknown option, a missing argument) as --json output too."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        words = args[:args.index("--")] if "--" in args else args
        ctx.meta["pbem.json"] = "--json" in words
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as e:
            if ctx.meta.get("pbem.json"):
                where = e.ctx.command_path if e.ctx is not None else "pbem"
                echo_result({}, e.exit_code, e.format_message(), f"`{where} --help` lists its arguments and options.")
            raise

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = super().list_commands(ctx)
        return sorted(names, key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Each command with its whole first sentence, wrapped, never cut off."""
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit=10_000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


class _WithScenarios(click.Command):
    """A command whose help ends with the bundled scenarios of each game."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        try:
            from pbem.engine.registry import modules

            rows = [(m.name, ", ".join(m.scenarios()) or "(none bundled yet)") for m in modules()]
        except Exception:  # a help text never fails
            return
        with formatter.section("Scenarios of each game (`pbem games`)"):
            formatter.write_dl(rows)


def _first_argument(ctx: click.Context, name: str) -> Any:
    """A command's first argument as completion sees it: parsed, or (when the word being completed
    is an option's value) still among the words left over."""
    value = ctx.params.get(name)
    if value is None:
        value = next((a for a in ctx.args if not a.startswith("-")), None)
    return value


def _complete_scenario(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    try:
        from pbem.engine.registry import modules

        game = ctx.params.get("game_name") or ctx.params.get("game")
        return sorted({s for m in modules() if not game or m.name == game for s in m.scenarios() if s.startswith(incomplete)})
    except Exception:
        return []


def _complete_game(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    try:
        from pbem.engine.registry import modules

        return [m.name for m in modules() if m.name.startswith(incomplete)]
    except Exception:
        return []


def _complete_side(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """The sides of the game of the state already on the command line (or of every game)."""
    try:
        sides: list[str] = []
        state = _first_argument(ctx, "state_path")
        if state is not None and Path(state).is_file():
            from pbem.exchange.files import read_toml

            sides = list(read_toml(Path(state)).get("parties", {}))
        else:
            from pbem.engine.registry import every_side, modules

            sides = list(dict.fromkeys(s for m in modules() for s in every_side(m)))
        return [s for s in sides if s.startswith(incomplete)]
    except Exception:
        return []


def _complete_side_key(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """`new --side`: SIDE= for the sides of the scenario's game."""
    try:
        from pbem.engine.registry import every_side, modules

        scenario = _first_argument(ctx, "scenario")
        mods = [m for m in modules() if not scenario or m.owns_scenario(scenario)]
        return [f"{s}=" for s in dict.fromkeys(s for m in mods for s in every_side(m)) if f"{s}=".startswith(incomplete)]
    except Exception:
        return []


def _complete_files(pattern: str, folders: bool = True) -> Callable[[click.Context, click.Parameter, str], list[Any]]:
    """Files whose names match ``pattern`` (and folders, to go into), in the folder typed so far."""
    from click.shell_completion import CompletionItem

    def complete(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
        try:
            folder = Path(incomplete).parent if incomplete and not incomplete.endswith("/") else Path(incomplete or ".")
            out: list[Any] = []
            for p in sorted(folder.iterdir()):
                name = str(p) if str(folder) != "." or incomplete.startswith("./") else p.name
                if not name.startswith(incomplete) or p.name.startswith("."):
                    continue
                if p.is_dir() and folders:
                    out.append(CompletionItem(name + "/", type="plain"))
                elif p.is_file() and p.match(pattern):
                    out.append(CompletionItem(name, type="plain"))
            return out
        except OSError:
            return []

    return complete


_STATES = _complete_files("*.toml")
_KEYS = _complete_files("*.key")


@click.group(cls=_Ordered, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show a traceback on errors.")
@click.version_option(__version__, prog_name="pbem")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """pbem: adjudicate board wargames played by e-mail.

    Signed, chained game files; dice committed before anyone can know them; a report that explains
    every result with its rule number.

    \b
    Example: a whole game in a temporary folder:
      pbem demo
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


def _passphrase(ask: bool) -> bytes | None:
    if ask:
        return click.prompt("Passphrase", hide_input=True).encode("utf-8")
    return None


def _key(path: Path, ask: bool = False) -> Any:
    from pbem.exchange.keys import load_key

    return load_key(path, _passphrase(ask))


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, default=_json_value))


def _json_value(value: Any) -> str:
    """A TOML date or time (the one kind of value a file read may hold that JSON has not: a file
    that holds one is refused, but what it says can be shown) as its ISO text."""
    import datetime

    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


def echo_result(data: dict[str, Any], code: int = 0, error: str = "", hint: str = "",
                problems: Sequence[Problem] = ()) -> None:
    """A command's --json output (docs/json.md, schemas/cli/): one object whose keys ``ok`` and
    ``exit`` (the exit code the command ends with) are always there, ``error``, ``hint`` and
    ``problems`` exactly when it failed, then the command's own keys (``data``)."""
    head: dict[str, Any] = {"ok": code == 0, "exit": code}
    if code:
        head |= {"error": error, "hint": hint, "problems": [p.as_json() for p in problems]}
    _echo_json({**data, **head})


def echo_error(e: PbemError, data: dict[str, Any] | None = None) -> None:
    """An error as --json prints it: the common keys (with the error's exit code), and ``data``."""
    echo_result(data or {}, e.exit_code, e.message, e.hint, e.problems)


def _wrote(paths: list[Path], written: list[Path]) -> str:
    """What a command wrote; a file already there with exactly these bytes (from an interrupted or
    earlier run) is named as such."""
    done = [p for p in paths if p not in written]
    if not done:
        return "wrote " + ", ".join(str(p) for p in paths)
    same = f"already there with exactly this content: {', '.join(str(p) for p in done)}"
    if not written:
        return same
    return f"wrote {', '.join(str(p) for p in written)} ({same})"


def _count(n: int, word: str, plural: str | None = None) -> str:
    """``n`` and the word, singular or plural: 1 picture, 2 pictures, 0 pictures."""
    return f"{n} {word if n == 1 else plural or word + 's'}"


def _option_values(opts: Sequence[str]) -> dict[str, Any]:
    """``--option NAME=VALUE`` of `pbem new` and `pbem demo` (``true``/``false`` as booleans; the
    game's options check and spell every value)."""
    options: dict[str, Any] = {}
    for o in opts:
        if "=" not in o:
            raise UsageError(f"--option {o}: write NAME=VALUE")
        k, v = o.split("=", 1)
        options[k] = {"true": True, "false": False}.get(v.lower(), v)
    return options


def _public_key(arg: str) -> str:
    """A public key given on the command line: ``ed25519:...`` text or a .pub file (read as any
    file pbem reads: a regular file, bounded)."""
    from pbem.exchange.files import read_bytes
    from pbem.exchange.keys import public_key_from_text

    text = arg.strip()
    if not text.startswith("ed25519:"):
        if not Path(arg).exists():
            raise UsageError(f"{arg}: neither a public key 'ed25519:...' nor a readable .pub file")
        raw = read_bytes(Path(arg), 64 * 1024, "public key file", UsageError)
        try:
            text = raw.decode("ascii").strip()
        except UnicodeDecodeError as e:
            raise UsageError(f"{arg}: neither a public key 'ed25519:...' nor a .pub file") from e
        if not text.startswith("ed25519:"):
            raise UsageError(f"{arg}: neither a public key 'ed25519:...' nor a .pub file")
    try:
        public_key_from_text(text)
    except ValueError as e:
        raise UsageError(f"{arg}: not an Ed25519 public key ({e})") from e
    return text


@cli.command()
@click.argument("name")
@click.option("--passphrase", "ask", is_flag=True, help="Protect the key with a passphrase (asked for).")
@click.option("--passphrase-env", metavar="VAR", help="Protect the key with the passphrase in $VAR.")
@guarded
def keygen(name: str, ask: bool, passphrase_env: str | None) -> None:
    """Make a key pair NAME.key (private, mode 0600) and NAME.pub.

    \b
    Example:
      pbem keygen alice            # alice.key, alice.pub
      pbem keygen bob --passphrase
    """
    import os

    from pbem.exchange.keys import KeyPair, write_key_files

    pw: bytes | None = None
    if ask:
        pw = click.prompt("Passphrase", hide_input=True, confirmation_prompt=True).encode("utf-8")
    elif passphrase_env:
        if not os.environ.get(passphrase_env):
            raise UsageError(f"${passphrase_env} is not set")
        pw = os.environ[passphrase_env].encode("utf-8")
    pair = KeyPair.generate()
    key_path, pub_path = write_key_files(pair, Path(name), pw)
    click.echo(f"wrote {key_path} (private, keep it) and {pub_path} (public: {pair.public_text}, key id {pair.key_id})")


@cli.command(cls=_WithScenarios)
@click.argument("scenario", shell_complete=_complete_scenario)
@click.option("--game", "game_name", shell_complete=_complete_game, help="The game (default: the one game that has SCENARIO; `pbem games` lists them).")
@click.option("--side", "sides", multiple=True, required=True, metavar="SIDE=PUBKEY", shell_complete=_complete_side_key, help="A side and its public key (text or .pub file).")
@click.option("--referee", metavar="PUBKEY", help="The referee's public key, for a refereed game.")
@click.option("--key", "key_path", type=click.Path(path_type=Path), required=True, shell_complete=_KEYS, help="Your private key (you are a party).")
@click.option("--game-id", help="The game id (default: derived from the keys, scenario and the time).")
@click.option("--option", "opts", multiple=True, metavar="NAME=VALUE",
              help="A rules option (see `pbem rules GAME`), or a deadline: deadline.KIND=DURATION (KIND join, orders, reply, "
                   "reveal or grace; DURATION like 72h or 3d), deadlines=on for the defaults.")
@click.option("-o", "--out", "out", type=click.Path(path_type=Path), required=True, help="The game folder to create.")
@click.option("--passphrase", "ask", is_flag=True, help="Ask for the key's passphrase.")
@click.option("--now", metavar="TIME", help="The time it is, UTC: YYYY-MM-DDTHH:MMZ (default: this machine's clock).")
@guarded
def new(scenario: str, game_name: str | None, sides: tuple[str, ...], referee: str | None, key_path: Path, game_id: str | None,
        opts: tuple[str, ...], out: Path, ask: bool, now: str | None) -> None:
    """Start a game: write state 0000, which awaits every party's join.

    \b
    Example:
      pbem new SCENARIO --side SIDE1=alice.pub --side SIDE2=bob.pub --key alice.key -o game
      pbem new SCENARIO ... --option deadline.orders=72h --option deadline.grace=24h -o game
    """
    from pbem.exchange import names
    from pbem.exchange.canonical import canonical
    from pbem.exchange.files import dumps, refuse_special, write_new
    from pbem.exchange.game import new_game

    if scenario.endswith(".toml"):  # a scenario file: a FIFO or a device is refused, never read
        refuse_special(Path(scenario), "scenario file")

    side_keys: dict[str, str] = {}
    for s in sides:
        if "=" not in s:
            raise UsageError(f"--side {s}: write SIDE=PUBKEY")
        name, pub = s.split("=", 1)
        side_keys[name.strip()] = _public_key(pub)
    ref = _public_key(referee) if referee else None
    key = _key(key_path, ask)
    options = _option_values(opts)
    module = _game_of(scenario, game_name)
    game_name = module.name
    if not game_id:
        material = canonical({"scenario": scenario, "sides": side_keys, "referee": ref or "", "time": _dt.datetime.now(_dt.UTC).isoformat()})
        game_id = f"{module.id_prefix}-" + hashlib.sha256(material).hexdigest()[:10]
    state = new_game(game_name, scenario, side_keys, ref, key, game_id, options, _now(now))
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: exists and is not a folder", hint="Give a new folder for the game.")
    if out.exists() and any(out.iterdir()):
        raise UsageError(f"{out}: the folder exists and is not empty", hint="Give a new folder for the game.")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"{out}: cannot create the folder ({e.strerror})") from e
    path = out / names.state(0)
    write_new(path, dumps(state))  # a new or empty folder: it cannot be there already
    click.echo(f"wrote {path}: game {game_id}, awaiting joins from {', '.join(state['awaits']['from'])} (`pbem join`)")


def _now(now: str | None) -> str:
    """``--now``, in its one spelling, or this machine's clock: the only place pbem reads it."""
    from pbem.exchange.deadlines import clock_now, parse_time

    if now is None:
        return clock_now()
    parse_time(now, "--now")
    return now


def _game_of(scenario: str, game_name: str | None) -> Any:
    """The game module ``--game`` names, else the one game that has the scenario."""
    from pbem.engine.registry import find_module, modules

    if game_name:
        return find_module(game_name)
    owners = [m for m in modules() if m.owns_scenario(scenario)]
    if len(owners) == 1:
        return owners[0]
    if not owners:
        known = "; ".join(f"{m.name}: {', '.join(m.scenarios())}" for m in modules())
        raise UsageError(f"no game has a scenario '{scenario}'", hint=f"Bundled scenarios (`pbem games`): {known}.")
    raise UsageError(f"the scenario '{scenario}' belongs to several games: {', '.join(m.name for m in owners)}",
                     hint="Name the game with --game.")


@cli.command()
@click.argument("state_path", metavar="STATE", type=click.Path(path_type=Path), shell_complete=_STATES)
@click.option("--side", required=True, shell_complete=_complete_side, help="Your side (or 'referee').")
@click.option("--key", "key_path", type=click.Path(path_type=Path), required=True, shell_complete=_KEYS,
              help="Your private key (NAME.key from `pbem keygen`).")
@click.option("-o", "--out", type=click.Path(path_type=Path), help="Output file (default: NNNN-SIDE.join.toml beside STATE).")
@click.option("--passphrase", "ask", is_flag=True, help="Ask for the key's passphrase (else $PBEM_PASSPHRASE, if set).")
@guarded
def join(state_path: Path, side: str, key_path: Path, out: Path | None, ask: bool) -> None:
    """Join a new game: your signed key and first dice commitment.

    \b
    Example:
      pbem join game/0000.state.toml --side SIDE --key bob.key
    """
    from pbem.exchange import names
    from pbem.exchange.files import dumps, remove_leftovers, write_new
    from pbem.exchange.game import (
        commitments_in,
        envelope,
        load_doc,
        load_state,
        make_join,
        new_salt,
        origin_of,
        wrong_key,
    )
    from pbem.exchange.ledger import join_salt

    st = load_state(state_path)
    key = _key(key_path, ask)
    seq = int(st.data["pbem"]["sequence"])
    path = out or state_path.parent / names.submission(seq, side, "join")
    if path.is_file():  # joined already (an earlier run, maybe interrupted after it wrote): nothing to do
        try:
            have = load_doc(path, "orders")
            envelope(st, have)
            mine = have.kind == "join" and have.data["pbem"]["side"] == side and have.data["seal"]["key"] == key.public_text
        except PbemError:
            mine = False
        if mine:
            remove_leftovers(path.parent)  # of the run that wrote it, if it was interrupted
            click.echo(f"{path}: already joined with this key; nothing to do")
            return
    if side in st.data["parties"] and st.data["parties"][side].get("key") != key.public_text:
        raise wrong_key(key, side, st, key_path)
    salt = join_salt(key, origin_of(st), new_salt())
    doc = make_join(st, side, key, salt=salt, used=commitments_in(state_path.parent, origin_of(st)))
    click.echo(_wrote([path], [path] if write_new(path, dumps(doc)) else []))


@cli.command()
@click.argument("state_path", metavar="STATE", type=click.Path(path_type=Path), shell_complete=_STATES)
@click.option("--side", required=True, shell_complete=_complete_side, help="Your side (a player).")
@click.option("--key", "key_path", type=click.Path(path_type=Path), required=True, shell_complete=_KEYS, help="Your private key.")
@click.option("--due", metavar="TIME", help="The new deadline of the awaited step, UTC YYYY-MM-DDTHH:MMZ (a pause: never earlier).")
@click.option("--deadline", "allow", multiple=True, metavar="KIND=DURATION",
              help="A new time allowed for the steps to come: KIND join, orders, reply, reveal or grace; DURATION like 96h or 4d.")
@click.option("-o", "--out", type=click.Path(path_type=Path), help="Output file (default: NNNN-SIDE.agree.toml beside STATE).")
@click.option("--passphrase", "ask", is_flag=True, help="Ask for the key's passphrase (else $PBEM_PASSPHRASE, if set).")
@guarded
def agree(state_path: Path, side: str, key_path: Path, due: str | None, allow: tuple[str, ...], out: Path | None, ask: bool) -> None:
    """Agree new deadline terms: a pause of the awaited step, new time allowances.

    Every player signs the same terms; the adjudicator of the step then adjudicates the agreement
    files (`pbem adjudicate STATE NNNN-*.agree.toml`): the next state awaits the same step, due
    when agreed, with the agreed allowances for the steps to come.

    \b
    Example:
      pbem agree game/0007.state.toml --side SIDE --key alice.key --due 2026-12-20T18:00Z
      pbem agree game/0007.state.toml --side SIDE --key bob.key --due 2026-12-20T18:00Z --deadline orders=96h
    """
    from pbem.exchange import deadlines, names
    from pbem.exchange.canonical import seal
    from pbem.exchange.files import dumps, write_new
    from pbem.exchange.game import FORMAT, Doc, answered, envelope, load_state, wrong_key

    st = load_state(state_path)
    s = st.data
    if side not in s["parties"] or side == "referee":
        raise UsageError(f"'{side}' is not a player of the game of {state_path}",
                         hint=f"Players: {', '.join(p for p in s['parties'] if p != 'referee')}.")
    key = _key(key_path, ask)
    if s["parties"][side]["key"] != key.public_text:
        raise wrong_key(key, side, st, key_path)
    terms: dict[str, Any] = {}
    if due is not None:
        deadlines.parse_time(due, "--due")
        terms["due"] = due
    for a in allow:
        kind, _, value = a.partition("=")
        if kind not in deadlines.DEFAULTS or not value:
            raise UsageError(f"--deadline {a}: write KIND=DURATION, KIND one of {', '.join(deadlines.DEFAULTS)}")
        terms.setdefault("deadlines", {})[kind] = deadlines.parse_duration(value, f"--deadline {kind}")
    if not terms:
        raise UsageError("nothing to agree: give --due and/or --deadline KIND=DURATION")
    doc = {"pbem": {"format": FORMAT, "kind": "agree", "game": s["pbem"]["game"], "module": s["pbem"]["module"], "side": side,
                    "answers": answered(st), "step": s["awaits"]["step"]}, "agree": terms}
    sealed = seal(doc, side, key)
    path = out or state_path.parent / names.submission(int(s["pbem"]["sequence"]), side, "agree")
    envelope(st, Doc(path, sealed))  # what the adjudicator will check: never write a file he refuses
    click.echo(_wrote([path], [path] if write_new(path, dumps(sealed)) else []))


def _state_or_latest(path: Path) -> Path:
    """STATE as given, or in a game folder its latest state (a player's folder of views: the
    latest view), as `check` and `verify` take a folder."""
    from pbem.errors import MalformedFileError
    from pbem.exchange import names

    if not path.is_dir():
        return path
    found = [(n.sequence, p) for p in path.iterdir() if (n := names.parse(p.name)) is not None and n.kind == "state"]
    if not found:
        found = [(n.sequence, p) for p in path.iterdir() if (n := names.parse(p.name)) is not None and n.kind == "view"]
    if not found:
        raise MalformedFileError(f"{path}: a folder with no state file (NNNN.state.toml) nor view in it",
                                 hint="Give the state file, or the game's folder.")
    latest = max(s for s, _ in found)
    views = sorted(p for s, p in found if s == latest)
    if len(views) > 1:
        raise UsageError(f"{path}: the latest views, {', '.join(p.name for p in views)}, are of several sides",
                         hint="Give the view file itself.")
    return views[0]


@cli.command()
@click.argument("state_path", metavar="STATE", type=click.Path(path_type=Path), shell_complete=_STATES)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--now", metavar="TIME", help="The time it is, UTC: YYYY-MM-DDTHH:MMZ (default: this machine's clock).")
@guarded
def status(state_path: Path, as_json: bool, now: str | None) -> None:
    """Whose move, which step, what is awaited, when it is due; a position summary.
    STATE may be the game folder: its latest state.

    \b
    Example:
      pbem status game/0003.state.toml --json
      pbem status game/ --now 2026-12-02T10:00Z
    """
    from pbem.engine.registry import find_module
    from pbem.exchange import deadlines, names
    from pbem.exchange.game import load_state

    state_path = _state_or_latest(state_path)
    st = load_state(state_path)
    s = st.data
    module = find_module(s["pbem"]["module"])
    info = {"file": str(state_path), "game": s["pbem"]["game"], "module": s["pbem"]["module"], "scenario": s["pbem"]["scenario"],
            "sequence": s["pbem"]["sequence"], "digest": st.digest, "clock": s["clock"], "awaits": s["awaits"],
            "summary": module.summary(s), "result": s.get("result"), "pending": s.get("pending", {}).get("question") or s.get("question"),
            "counters": module.status_lines(s)}
    due = deadlines.status(s, _now(now))
    if due is not None:
        info["deadline"] = due
    info["mail"] = _mail_evidence(state_path, s)
    if as_json:
        echo_result(info)
        return
    aw = s["awaits"]
    click.echo(f"game {info['game']} ({info['scenario']}), state {names.number(s['pbem']['sequence'])} {st.digest}")
    click.echo(module.status_line(s))
    if s.get("result") and aw["kind"] == "none":
        click.echo(result_text(s["result"]))
    else:
        click.echo(f"awaits {aw['kind']} for step {aw['step']} from {', '.join(aw['from'])}; adjudicated by {aw['adjudicator']}")
    if due is not None:
        click.echo(deadlines.status_line(due))
    if info["pending"]:
        q = info["pending"]
        click.echo(f"decision needed from {q['side']}: {q['text']} ({q['rule']})")
    for line in info["counters"]:
        click.echo(line)
    for rec in info["mail"]:
        if "error" in rec:
            click.echo(f"mail record of {rec['file']}: unreadable ({rec['error']})")
        for m in rec["messages"]:
            line = m["verdict"]["line"] if "verdict" in m else m["summary"]
            click.echo(f"mail evidence of {rec['file']} ({m['message_id'] or 'no Message-ID'}): {line}")


def _mail_evidence(state_path: Path, s: dict[str, Any]) -> list[dict[str, Any]]:
    """The evidence of time `pbem mail read` recorded beside the files answering this state and the
    one before it, each message against the deadline of the step its file answers (README: E-mail)."""
    from pbem.errors import PbemError
    from pbem.exchange import mailtime, names
    from pbem.exchange.game import load_doc

    seq, folder = int(s["pbem"]["sequence"]), state_path.parent
    out = mailtime.beside(folder, seq, s)
    if seq > 0:
        prev = folder / (names.state(seq - 1) if s["pbem"]["kind"] == "state" else names.view(seq - 1, str(s["pbem"]["side"])))
        try:
            out = mailtime.beside(folder, seq - 1, load_doc(prev).data) + out if prev.is_file() else out
        except PbemError:
            pass
    return out


@cli.command()
@click.argument("state_path", metavar="STATE", type=click.Path(path_type=Path), shell_complete=_STATES)
@click.option("--side", required=True, shell_complete=_complete_side, help="The side whose file to write (the awaited one).")
@click.option("-o", "--out", type=click.Path(path_type=Path), help="Write to a file instead of standard output.")
@guarded
def template(state_path: Path, side: str, out: Path | None) -> None:
    """A skeleton order (or reply) file for the awaited step, ready to edit.

    \b
    Example:
      pbem template game/0001.state.toml --side SIDE -o game/0001-SIDE.orders.toml
    """
    from pbem.exchange.files import write_new
    from pbem.exchange.game import load_state, template_text

    st = load_state(state_path)
    s = st.data
    if side not in s["awaits"]["from"]:
        raise UsageError(f"the game does not await anything from '{side}' (it awaits {s['awaits']['kind']} from {', '.join(s['awaits']['from']) or 'nobody'})")
    if s["awaits"]["kind"] == "join":
        raise UsageError("the game awaits joins: use `pbem join`")
    text = template_text(s, side)
    if out:
        click.echo(_wrote([out], [out] if write_new(out, text) else []))
    else:
        click.echo(text, nl=False)


@cli.command()
@click.argument("state_path", metavar="STATE", type=click.Path(path_type=Path), shell_complete=_STATES)
@click.argument("orders", type=click.Path(path_type=Path), shell_complete=_STATES)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (JSON).")
@click.option("--github", is_flag=True, help="Problems as GitHub Actions annotations (docs/git.md).")
@guarded
def check(state_path: Path, orders: Path, as_json: bool, github: bool) -> None:
    """Every problem of an order file, each with its rule number; nothing is written.
    STATE may be the game folder: the state the file answers is found by its digest.

    \b
    Example:
      pbem check game/0001.state.toml game/0001-SIDE.orders.toml
      pbem check --github game/ game/0001-SIDE.orders.toml
    """
    from pbem.annotations import command, error_lines, problem_lines

    if as_json and github:
        raise UsageError("give --json or --github, not both")
    try:
        st, c = _check(state_path, orders)
    except PbemError as e:
        if github:
            click.echo("\n".join(error_lines("pbem check", e, str(orders))))
        raise
    if github:
        if c.problems:
            click.echo("\n".join(problem_lines("pbem check", c.problems, str(orders))))
        elif not c.sealed:
            click.echo(command("warning", "legal, but not sealed yet: `pbem sign`", str(orders), "pbem check"))
    if as_json:
        echo_result({"file": str(orders), "sealed": c.sealed}, EXIT_ILLEGAL if c.problems else 0,
                    f"{orders}: {_count(len(c.problems), 'problem')}", _table_numbering(c.problems).strip("()"), c.problems)
        if c.problems:  # as every --json failure: the data on standard output, the paragraph on standard error
            click.echo(f"pbem: {orders}: {_count(len(c.problems), 'problem')}", err=True)
    elif c.problems:
        click.echo(f"{orders}: {_count(len(c.problems), 'problem')}:")
        for p in c.problems:
            click.echo(f"  - {p.render()}")
        legend = _table_numbering(c.problems)
        if legend:
            click.echo(legend)
    else:
        click.echo(f"{orders}: legal for step {st.data['awaits']['step']}" + ("" if c.sealed else " (not sealed yet: `pbem sign`)"))
    if c.problems:
        sys.exit(EXIT_ILLEGAL)


def _table_numbering(problems: list[Any]) -> str:
    """How a problem's place counts the tables of a file, next to the report's numbers: ``move[0]``
    is the first ``[[move]]`` (the report's "Move 1"). Said once, for the first place that needs it
    (docs/files.md, Numbering)."""
    for p in problems:
        m = re.match(r"([a-z_]+)\[(\d+)\]", p.where)
        if m:
            name, i = m.group(1), int(m.group(2))
            return (f"(Places count from 0 as in TOML: {name}[{i}] is [[{name}]] number {i + 1} in the file, "
                    f"which a report calls {name.capitalize()} {i + 1}.)")
    return ""


def _load_orders(orders: Path) -> Any:
    """An order file to check: one its author changed after sealing it is tampering (exit 3), and
    the error says how its author seals it again."""
    from pbem.errors import TamperError
    from pbem.exchange.game import load_doc

    try:
        return load_doc(orders, "orders")
    except TamperError as e:
        if "changed after it was signed" in e.message:
            e.hint = (e.hint + " " if e.hint else "") + "If it is your own file, `pbem sign` with your key seals it again."
        raise


def _check(state_path: Path, orders: Path) -> tuple[Any, Any]:
    """`pbem check`: the state (given, or found in a folder by the digest the file answers) and
    the checked file."""
    from pbem.errors import MalformedFileError, TamperError
    from pbem.exchange import names
    from pbem.exchange.game import check_orders, check_state_seal, find_state_for, load_state

    if not state_path.is_dir():
        st = load_state(state_path)
        return st, check_orders(st, _load_orders(orders))
    if not any(state_path.glob(names.STATE_GLOB)):
        raise MalformedFileError(f"{state_path}: no state files found", hint="Give the state file, or the game folder.")
    doc = _load_orders(orders)
    name = names.parse(orders.name)  # NNNN-SIDE.orders.toml answers NNNN.state.toml
    named = state_path / names.state(name.sequence) if name is not None else None
    found = load_state(named) if named is not None and named.is_file() else None
    if found is None or found.digest != doc.data["pbem"]["answers"]:
        found = find_state_for(doc, state_path)
        if found is None:
            raise TamperError(f"{orders}: answers state {doc.data['pbem']['answers'][:19]}..., which is not in {state_path}",
                              hint="An order file is bound to one state: it belongs to another game or state.")
        check_state_seal(found)
    return found, check_orders(found, doc)


@cli.command()
@click.argument("orders", type=click.Path(path_type=Path), shell_complete=_STATES)
@click.option("--key", "key_path", type=click.Path(path_type=Path), required=True, shell_complete=_KEYS,
              help="Your private key (NAME.key from `pbem keygen`).")
@click.option("--state", "state_path", type=click.Path(path_type=Path), shell_complete=_STATES,
              help="The state (or view) the file answers (default: found in the file's folder).")
@click.option("-o", "--out", type=click.Path(path_type=Path), help="Write the sealed file here (default: seal ORDERS in place).")
@click.option("--force", is_flag=True, help="Seal again a file that already has a seal.")
@click.option("--passphrase", "ask", is_flag=True, help="Ask for the key's passphrase (else $PBEM_PASSPHRASE, if set).")
@guarded
def sign(orders: Path, key_path: Path, state_path: Path | None, out: Path | None, force: bool, ask: bool) -> None:
    """Seal an order or reply file: dice reveal, next commitment, signature.

    \b
    Example:
      pbem sign game/0001-SIDE.orders.toml --key alice.key --state game/0001.state.toml
    """
    from pbem.errors import IllegalOrdersError, TamperError
    from pbem.exchange.chain import check_before_reveal
    from pbem.exchange.files import parse_toml, read_bytes, replace_file, validate, write_new
    from pbem.exchange.game import (
        Doc,
        answered,
        check_orders,
        check_state_seal,
        find_state_for,
        load_state,
        origin_of,
        parse_doc,
        sign_orders,
        without_seal_text,
        wrong_key,
    )
    from pbem.exchange.ledger import record_reveal

    raw = read_bytes(orders)  # read once: what is sealed is what was checked
    data = parse_toml(raw, str(orders))
    source = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    edited = False
    try:
        doc = parse_doc(data, orders, "orders")
        key = _key(key_path, ask)
    except TamperError:
        # a file its author changed after sealing it: his key seals it again (its comments kept);
        # anyone else's changed file stays tampering
        seal = data.get("seal")
        if not isinstance(seal, dict) or not isinstance(seal.get("key"), str):
            raise
        key = _key(key_path, ask)
        if seal["key"] != key.public_text:
            raise
        bare = {k: v for k, v in data.items() if k not in ("seal", "dice")}
        doc = parse_doc(bare, orders, "orders")
        source = without_seal_text(source, bare)
        edited = True
    if state_path:
        st = load_state(state_path)
    else:
        found = find_state_for(doc, orders.parent)
        if found is None:
            raise UsageError(f"{orders}: the state it answers is not in {orders.parent}",
                             hint="Give it with --state STATE: your dice secret for this game is derived from it.")
        check_state_seal(found)
        st = found
    side = str(doc.data["pbem"]["side"])
    sealed_already = out is None and not force and ("seal" in doc.data or "dice" in doc.data)
    if sealed_already:
        if side not in st.data["parties"] or st.data["parties"][side]["key"] != key.public_text:
            raise wrong_key(key, side, st, key_path)
        check_before_reveal(st, side, key)  # before anything is made with the key from this state
        # sealed already: by this key with these dice (an earlier run, maybe interrupted after it
        # wrote), there is nothing to do; anything else needs --force
        again = parse_toml(sign_orders(orders, source, doc.data, key, st, True).encode("utf-8"), str(orders))
        if again == doc.data:
            click.echo(f"{orders}: already sealed with this key; nothing to do")
            return
    unsealed_doc = doc
    if force and ("seal" in doc.data or "dice" in doc.data):
        unsealed_doc = Doc(doc.path, {k: v for k, v in doc.data.items() if k not in ("seal", "dice")})
    c = check_orders(st, unsealed_doc)
    if c.problems:
        raise IllegalOrdersError(f"{orders}: not signed: {_count(len(c.problems), 'problem')}", c.problems)
    if st.data["parties"][side]["key"] != key.public_text:
        raise wrong_key(key, side, st, key_path)
    if not sealed_already:
        check_before_reveal(st, side, key)
    party = st.data["parties"][side]
    record_reveal(key, origin_of(st), str(party["salt"]), int(party["index"]), answered(st))
    text = sign_orders(orders, source, doc.data, key, st, force)
    validate(parse_toml(text.encode("utf-8"), str(orders)), "orders", str(orders))
    if out:
        click.echo(_wrote([out], [out] if write_new(out, text) else []))
        return
    replace_file(orders, text, "the sealed file", before=raw)
    if edited:
        click.echo(f"sealed {orders} again: it was changed after its seal (its comments are kept). If you sent the "
                   "earlier version, that one counts: a second file for one step is an equivocation.")
    else:
        click.echo(f"sealed {orders}")


@cli.command()
@click.argument("state_path", metavar="STATE", type=click.Path(path_type=Path), shell_complete=_STATES)
@click.argument("orders", nargs=-1, type=click.Path(path_type=Path), shell_complete=_STATES)
@click.option("--key", "key_path", type=click.Path(path_type=Path), required=True, shell_complete=_KEYS, help="The adjudicator's private key.")
@click.option("--no-orders", "defaulted", multiple=True, metavar="SIDE", shell_complete=_complete_side,
              help="Adjudicate without SIDE's file, its deadline and grace period having passed (as the game settles a "
                   "missing side): a referee, or in a game with deadlines the waiting player.")
@click.option("-o", "--out", type=click.Path(path_type=Path), help="Next state (default NNNN.state.toml beside STATE).")
@click.option("--report", type=click.Path(path_type=Path), help="Report (default NNNN.report.md beside the next state).")
@click.option("--passphrase", "ask", is_flag=True, help="Ask for the key's passphrase (else $PBEM_PASSPHRASE, if set).")
@click.option("--now", metavar="TIME", help="The time it is, UTC: YYYY-MM-DDTHH:MMZ (default: this machine's clock).")
@guarded
def adjudicate(state_path: Path, orders: tuple[Path, ...], key_path: Path, defaulted: tuple[str, ...], out: Path | None,
               report: Path | None, ask: bool, now: str | None) -> None:
    """Resolve the awaited step: the next signed state, its report and the picture of the turn.

    Beside the next state (NNNN.state.toml) it writes the turn report (NNNN.report.md) and the
    picture of the turn (NNNN.turn.svg: the map with its moves and attacks); in a refereed game
    also each side's view and report.

    \b
    Example:
      pbem adjudicate game/0001.state.toml game/0001-SIDE.orders.toml --key bob.key
      pbem adjudicate game/0004.state.toml --no-orders SIDE --key referee.key
      pbem adjudicate game/0004.state.toml game/0004-*.agree.toml --key bob.key
    """
    from pbem.exchange import names
    from pbem.exchange.chain import Chain, check_before_reveal
    from pbem.exchange.files import write_all_new
    from pbem.exchange.game import adjudicate as run
    from pbem.exchange.game import load_doc, load_state, origin_of, remember_made, wrong_key
    from pbem.exchange.ledger import record_reveal

    st = load_state(state_path, views=False)
    if not orders and not defaulted and st.data["awaits"]["from"]:  # a step from nobody: the adjudicator's alone
        raise UsageError("give the order, join, reply or reveal files to adjudicate (or --no-orders SIDE, for a referee)")
    key = _key(key_path, ask)
    docs = [load_doc(p, "orders") for p in orders]
    agreement = bool(docs) and all(d.kind == "agree" for d in docs)  # reveals nothing
    if st.data["awaits"]["kind"] not in ("join", "none") and not agreement:  # the adjudicator reveals a secret: only for the game's history
        adj = str(st.data["awaits"]["adjudicator"])
        if st.data["parties"].get(adj, {}).get("key") != key.public_text:
            raise wrong_key(key, adj, st, key_path, hint=f"This step is adjudicated by '{adj}': the other player (or the "
                                                          "referee) adjudicates your orders; send them the file.")
        check_before_reveal(st, adj, key)
        party = st.data["parties"][adj]
        record_reveal(key, origin_of(st), str(party["salt"]), int(party["index"]), st.digest)
    here = Chain.read([state_path.parent], quiet=True) if defaulted else Chain()
    for side in defaulted:  # a side "without its orders" whose sealed orders for this state are here: adjudicate them
        held = here.held(st.digest, side)
        if held:
            raise UsageError(f"--no-orders {side}: {held[0].path} holds {side}'s sealed orders for this very state",
                             hint="Adjudicate the orders you have; --no-orders is for a side that sent nothing by the deadline.")
    res = run(st, docs, key, list(defaulted), _now(now) if "deadlines" in st.data else None)
    nxt = res.state
    out = out or state_path.parent / names.state(res.sequence)
    files = res.outputs(out, report)
    written = write_all_new(files, commit=out)  # the state last: it is the commit point
    remember_made(st, files[0][1], out)  # the adjudicator's next command need not replay it
    aw = nxt["awaits"]
    if not written:
        click.echo(f"{out}: this adjudication is made already: the state exists, and so do its other files, with exactly "
                   f"the bytes these inputs give (the same inputs always give the same bytes); nothing was written")
    elif len(written) < len(files):
        rest = len(files) - len(written)
        click.echo(f"wrote {', '.join(str(p) for p in written)}; {_count(rest, 'other file')} of this adjudication "
                   f"{'was' if rest == 1 else 'were'} there already, from an earlier run, with exactly the bytes these inputs give")
    else:
        click.echo(_wrote([p for p, _ in files], written))
    if nxt.get("result") and aw["kind"] == "none":
        click.echo(result_text(nxt["result"], reason=False))
    else:
        click.echo(f"awaits {aw['kind']} for {aw['step']} from {', '.join(aw['from'])}")



@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (JSON).")
@click.option("--progress/--quiet", "show_progress", default=None,
              help="Progress lines on standard error, or none (default: only when standard error is a terminal).")
@click.option("--github", is_flag=True, help="A failure as GitHub Actions annotations (docs/git.md).")
@click.option("--from", "anchor", metavar="DIGEST",
              help="Trust the history from the state of this digest (one you hold), not from the game's first state.")
@guarded
def verify(paths: tuple[Path, ...], as_json: bool, show_progress: bool | None, github: bool, anchor: str | None) -> None:
    """Signatures, chain, commitments and a deterministic replay of every transition.

    The history is trusted from the game's first state (0000, re-derived from its scenario) or from
    the state named with --from. Two different files signed by one party for one step are an
    equivocation (exit 3), shown with both files. Progress goes to standard error when it is a
    terminal (--progress: always): at most one line a second, and the last transition.

    \b
    Example:
      pbem verify game/
      pbem verify game/ --from sha256:9f2c...
      pbem verify --github games/demo/
    """
    import time

    from pbem.annotations import error_lines, note_line
    from pbem.exchange.chain import verify as run
    from pbem.exchange.files import check_folder_files, refuse_special

    if as_json and github:
        raise UsageError("give --json or --github, not both")
    shown = [float("-inf")]
    if show_progress is None:  # a terminal shows it; a log or a test's captured output does not
        show_progress = sys.stderr.isatty()

    def progress(n: int, last: int) -> None:
        now = time.monotonic()
        if show_progress and not as_json and (n == last or now - shown[0] >= 1.0):
            shown[0] = now
            click.echo(f"checking transition {n} of {last} ({100 * n // max(last, 1)}%)", err=True)

    try:
        if anchor is not None and not re.fullmatch(r"sha256:[0-9a-f]{64}", anchor):
            raise UsageError(f"--from {anchor[:80]}: a state's digest is 'sha256:' and 64 lower-case hex digits",
                             hint="`pbem status STATE` prints a state's digest.")
        for p in paths:  # only folders and regular files are read: a FIFO or a device is refused, never waited on
            refuse_special(p)
            if p.is_dir():
                check_folder_files(p)
        res = run(list(paths), progress, anchor)
    except PbemError as e:
        if github:
            click.echo("\n".join(error_lines("pbem verify", e, None)))
        if as_json:
            echo_error(e)
            click.echo(f"pbem: {e.render()}", err=True)
            sys.exit(e.exit_code)
        raise
    if as_json:
        echo_result({"states": res.states, "transitions": res.transitions, "reports": res.reports, "pictures": res.pictures, "views": res.views, "dice": res.dice, "last": res.last,
                    "trusted_from": {"file": res.anchor, "digest": res.anchor_digest, "how": res.anchor_how} if res.anchor else None,
                    "notes": res.notes})
    else:
        for note in res.notes:
            click.echo(note_line("pbem verify", note) if github else f"note: {note}")
        if res.states == 0:
            click.echo(f"ok: {_count(res.views, 'view')} of the referee's states: seals, chain and commitments hold, {_count(res.dice, 'die', 'dice')} "
                       f"re-derived; last {res.last}")
            click.echo(f"trusted from {res.anchor} ({res.anchor_how}; {res.anchor_digest})")
        else:
            views = f", {_count(res.views, 'view')}" if res.views else ""
            click.echo(f"ok: {_count(res.states, 'state')}, {_count(res.transitions, 'transition')} replayed, "
                       f"{_count(res.reports, 'report')} and {_count(res.pictures, 'picture')} match{views}; last {res.last}")
            click.echo(f"trusted from {res.anchor} ({res.anchor_how}; {res.anchor_digest})")


@cli.command()
@click.argument("state_path", metavar="STATE", type=click.Path(path_type=Path), shell_complete=_STATES)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (JSON).")
@guarded
def audit(state_path: Path, as_json: bool) -> None:
    """Every die of the transition that produced STATE, re-derived from the reveals.

    \b
    Example:
      pbem audit game/0002.state.toml
    """
    from pbem.exchange.chain import audit as run

    res = run(state_path)
    if as_json:
        echo_result(res)
        return
    click.echo(f"{state_path}: sequence {res['sequence']}")
    if res.get("note"):
        click.echo(res["note"])
        return
    for c in res["commitments"]:
        click.echo(f"reveal of {c['party']}: sha256({c['reveal'][:16]}...) = {c['commitment'][:23]}... matches")
    click.echo(f"seed = SHA-256(canonical JSON of {json.dumps(res['seed_material'], sort_keys=True)[:80]}...)")
    click.echo(f"     = {res['seed']}")
    for r in res["dice"]:
        click.echo(f"{r['label']}: HMAC-SHA-256(seed, label) = {r['hmac'][:16]}...; byte {r['byte']}"
                   f" ({r['rejected']} rejected) -> {r['byte']} mod {r['sides']} + 1 = {r['derived']} (recorded {r['recorded']}) ok")
    if not res["dice"]:
        click.echo("no dice were rolled in this transition")


@cli.command()
@click.argument("state_path", metavar="STATE", type=click.Path(path_type=Path), shell_complete=_STATES)
@click.option("--side", shell_complete=_complete_side, help="Show what this side may see.")
@click.option("--svg", type=click.Path(path_type=Path), help="Draw the map with the position as an SVG picture into this file.")
@guarded
def show(state_path: Path, side: str | None, svg: Path | None) -> None:
    """The position, as text or as a map picture (as SIDE may see it). STATE may be the game
    folder: its latest state.

    \b
    Example:
      pbem show game/0003.state.toml --side SIDE
      pbem show game/0003.state.toml --svg position.svg
    """
    from pbem.engine.registry import find_module
    from pbem.exchange.game import load_state

    st = load_state(_state_or_latest(state_path))
    if side is not None and side not in st.data["parties"]:
        raise UsageError(f"--side {side}: '{side}' is not a side of this game", hint=f"Sides: {', '.join(st.data['parties'])}.")
    module = find_module(st.data["pbem"]["module"])
    data = st.data
    if side is not None and st.kind == "state":  # what that side may see (the game's view_position)
        data = {**data, "position": module.view_position(data, side)}
    if svg:
        from pbem.exchange.files import write_new

        click.echo(_wrote([svg], [svg] if write_new(svg, module.render_svg(data, side)) else []))
        return
    click.echo(module.render_position(data, side), nl=False)


@cli.command()
@click.argument("state_path", metavar="STATE", type=click.Path(path_type=Path))
@click.option("--key", "key_path", required=True, type=click.Path(path_type=Path), help="Your private key: it opens your hidden values.")
@click.option("--ask", is_flag=True, help="Ask for the key's passphrase.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (JSON).")
@guarded
def hidden(state_path: Path, key_path: Path, ask: bool, as_json: bool) -> None:
    """Your hidden values in a game without a referee: what you committed, what you drew.

    Only your key opens them (docs/protocol.md, Hidden values). A draw the state asks of you is
    shown as `pbem sign` will commit it with your next file.

    \b
    Example:
      pbem hidden game/0004.state.toml --key SIDE.key
    """
    from pbem.exchange.game import load_state, own_hidden

    st = load_state(state_path)
    res = own_hidden(st, _key(key_path, ask))
    if as_json:
        echo_result(res)
        return
    side = res["side"]
    if not (res["hidden"] or res["draws"] or res["opened"]):
        click.echo(f"{side} holds nothing hidden in {state_path}")
        return
    for item, value in res["hidden"].items():
        click.echo(f"{side} {item} (hidden) = {json.dumps(value, sort_keys=True)}")
    for item, value in res["draws"].items():
        click.echo(f"{side} {item} (drawn when you sign your next file) = {json.dumps(value, sort_keys=True)}")
    for item, value in res["opened"].items():
        click.echo(f"{side} {item} (opened, public) = {json.dumps(value, sort_keys=True)}")


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (JSON).")
@guarded
def games(as_json: bool) -> None:
    """The games pbem adjudicates: each with its sides and bundled scenarios.

    \b
    Example:
      pbem games
    """
    from pbem.engine.registry import modules

    rows: list[dict[str, Any]] = []
    for m in modules():
        variants: dict[str, tuple[str, ...]] = getattr(m, "side_variants", {}) or {}
        rows.append({"game": m.name, "title": m.title, "sides": list(m.sides), "scenarios": m.scenarios(),
                     **({"side_variants": {o: list(v) for o, v in variants.items()}} if variants else {})})
    if as_json:
        echo_result({"games": rows})
        return
    for r in rows:
        also = "".join(f" (with --option {o}: {', '.join(v)})" for o, v in r.get("side_variants", {}).items())
        click.echo(f"{r['game']}: {r['title']}; sides {', '.join(r['sides'])}{also}; scenarios {', '.join(r['scenarios'])}")


@cli.command()
@click.argument("game", shell_complete=_complete_game)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (JSON).")
@guarded
def rules(game: str, as_json: bool) -> None:
    """The rule coverage table of GAME: each rule's status and the catalog cases that test it.

    \b
    Example:
      pbem rules GAME
    """
    from pbem.engine.registry import find_module

    module = find_module(game)
    rows = module.coverage()
    if as_json:
        echo_result({"game": module.name, "rules": rows})
        return
    for r in rows:
        cases = ", ".join(r.get("cases", []))
        extra = f" [{cases}]" if cases else (f" — {r['note']}" if r.get("note") else "")
        click.echo(f"{r['rule']:<8} {r['status']:<15} {r['title']}{extra}")


@cli.group()
def module() -> None:
    """Game module data: what is provisional or missing, and data problems.

    \b
    Example:
      pbem module check GAME
    """


@module.command("check")
@click.argument("game", shell_complete=_complete_game)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (JSON).")
@guarded
def module_check(game: str, as_json: bool) -> None:
    """Load and validate every bundled scenario of GAME; list what is provisional or missing and
    every data problem (exit 1 if there is one).

    \b
    Example:
      pbem module check GAME
    """
    from pbem.engine.registry import find_module

    module = find_module(game)
    rows = module.data_report()
    bad = [Problem(r["item"], r["note"]) for r in rows if r["status"] == "problem"]
    if as_json:
        echo_result({"game": module.name, "rows": rows}, EXIT_ILLEGAL if bad else 0,
                    f"{module.name}: {_count(len(bad), 'data problem')}", "Each is a problem of the game's bundled data.", bad)
    else:
        for r in rows:
            click.echo(f"{r['status']:<12} {r['item']}: {r['note']}")
    if bad:
        if as_json:
            click.echo(f"pbem: {module.name}: {_count(len(bad), 'data problem')}", err=True)
        sys.exit(EXIT_ILLEGAL)


@cli.group()
def catalog() -> None:
    """The rules catalog: numbered cases, each a position, orders, dice and what must come of it.

    \b
    Example:
      pbem catalog run tests/games
    """


@catalog.command("run")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Every case's result as JSON.")
@guarded
def catalog_run(paths: tuple[Path, ...], as_json: bool) -> None:
    """Run catalog cases: the case files given, and those of each folder (PREFIX-NNN-*.toml, in its
    subfolders too), each against its game's rules. Exit 1 if a case fails, 2 if one is malformed
    (not a case of schemas/case.schema.json, of no game, or with a key no one reads).

    \b
    Example:
      pbem catalog run tests/games
      pbem catalog run tests/games/GAME/catalog/CASE.toml --json
    """
    from pbem.catalog import case_files, run_case

    files = case_files(paths)
    if not files:
        raise UsageError(f"no case file in {', '.join(map(str, paths))}",
                         hint="A case file is named by its id: PREFIX-NNN-words.toml.")
    results = [run_case(p) for p in files]
    counts = {s: sum(r.status == s for r in results) for s in ("pass", "fail", "malformed")}
    code = EXIT_MALFORMED if counts["malformed"] else EXIT_ILLEGAL if counts["fail"] else 0
    if as_json:
        bad = [Problem(str(r.path), f"{r.id}: {m}" if r.id else m) for r in results for m in r.malformed + r.failures]
        echo_result({"passed": counts["pass"], "failed": counts["fail"], "malformed": counts["malformed"],
                     "cases": [r.as_json() for r in results]}, code,
                    f"{_count(len(results), 'case')}: {counts['fail']} failed, {counts['malformed']} malformed", "", bad)
        if code:
            click.echo(f"pbem: {_count(len(results), 'case')}: {counts['fail']} failed, {counts['malformed']} malformed", err=True)
    else:
        for r in results:
            if r.status == "fail":
                click.echo(f"FAIL {r.id} {r.title} ({r.path})")
                click.echo("\n".join("  " + line for f in r.failures for line in f.splitlines()))
            elif r.status == "malformed":
                click.echo(f"MALFORMED {r.path}")
                click.echo("\n".join("  " + line for f in r.malformed for line in f.splitlines()))
        click.echo(f"{_count(len(results), 'case')}: {counts['pass']} passed, {counts['fail']} failed, {counts['malformed']} malformed")
    if counts["malformed"]:
        sys.exit(EXIT_MALFORMED)
    if counts["fail"]:
        sys.exit(EXIT_ILLEGAL)


@cli.command(cls=_WithScenarios)
@click.option("--out", type=click.Path(path_type=Path), help="Play into this (new) folder instead of a temporary one.")
@click.option("--turns", default=2, show_default=True, help="Game turns to play.")
@click.option("--full", is_flag=True, help="Play under the game's full rules (every advanced rule implemented so far).")
@click.option("--scenario", default=None, shell_complete=_complete_scenario, help="The bundled scenario to play (default: the game's demo scenario).")
@click.option("--auto", is_flag=True, help="Orders from the built-in player, not the bundled examples.")
@click.option("--game", default=None, shell_complete=_complete_game, help="The game to play (default: the first that `pbem games` lists).")
@click.option("--option", "opts", multiple=True, metavar="NAME=VALUE",
              help="A rules option of the game, as `pbem new` takes it (see `pbem rules GAME`).")
@guarded
def demo(out: Path | None, turns: int, full: bool, scenario: str | None, auto: bool, game: str | None,
         opts: tuple[str, ...]) -> None:
    """Play a bundled scenario: keys, joins, orders checked and signed, adjudicated, verified.

    The game's demo scenario plays its bundled example orders; any other scenario, or --auto,
    plays the orders a simple built-in player proposes.

    \b
    Example:
      pbem demo
      pbem demo --full --turns 3
      pbem demo --auto --full --turns 3
      pbem demo --game GAME --option NAME=VALUE --turns 1
    """
    from pbem.demo import run_demo

    if out is not None and out.exists() and not out.is_dir():
        raise UsageError(f"{out}: exists and is not a folder", hint="Give a new folder for the demo.")
    options = _option_values(opts)
    run_demo(out, turns, click.echo, options or None, scenario=scenario, auto=auto, game=game, full=full)


from pbem.cli_mail import mail  # noqa: E402  (it uses `guarded` from this module)

cli.add_command(mail)

from pbem.cli_site import site  # noqa: E402

cli.add_command(site)


def main() -> None:
    try:
        cli(obj={})
    except BrokenPipeError:  # e.g. `pbem rules GAME | head`
        sys.stderr.close()
        sys.exit(0)


if __name__ == "__main__":
    main()
