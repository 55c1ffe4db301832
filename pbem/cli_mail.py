"""``pbem mail``: game files by e-mail (README: E-mail). The library is ``pbem.exchange.mail``."""

from __future__ import annotations

import datetime as _dt
import os
import sys
from pathlib import Path

import click

from pbem.errors import UsageError

PASSWORD_ENV = "PBEM_SMTP_PASSWORD"


@click.group()
def mail() -> None:
    """Game files by e-mail: read them out of a message, write the outgoing message, send it.

    \b
    Example:
      pbem mail read reply.eml --folder game
      pbem mail write game/0002.state.toml --orders game/0002-SIDE.orders.toml \\
          --from bob@example.org --to alice@example.org -o 0002.eml
      pbem mail send 0002.eml --smtp smtp.example.org --user bob
    """


# pbem.cli registers `mail` at its end; importing it only now lets either module be imported first.
from pbem.cli import echo_error, echo_result, guarded  # noqa: E402


@mail.command("read")
@click.argument("message", type=click.Path(path_type=Path))
@click.option("--folder", type=click.Path(path_type=Path), metavar="GAME",
              help="Check the files against this game folder and file the new ones into it.")
@click.option("--ok-if-none", is_flag=True, help="A message without any game file is no error (exit 0).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@guarded
def mail_read(message: Path, folder: Path | None, ok_if_none: bool, as_json: bool) -> None:
    """Check the game files in an e-mail, an mbox or a Maildir; with --folder, file the new ones.

    MESSAGE is an .eml file, an mbox file, a Maildir folder, or - for a message on standard input
    (a mail filter's pipe). Files are found by their content, attached or pasted into the text
    (quoted or not, wrapped or not, in an HTML-only message too), and are filed under the game
    folder's names for their content, never under an attachment's name. If anything is wrong with
    any of them, nothing is written; a damaged message of an mbox or Maildir is reported and
    skipped, and the others are read.

    \b
    Example:
      pbem mail read reply.eml --folder game
      pbem mail read ~/Mail/pbem.mbox --json
      pbem mail read ~/Maildir/.pbem --folder game --ok-if-none
      pbem mail read - --folder game < reply.eml
    """
    from pbem.exchange import mailtime, names
    from pbem.exchange.files import check_folder_files, remove_leftovers, replace_file, write_all_new
    from pbem.exchange.mail import Mailbox, display, read_mail, read_maildir, read_message_file, read_stdin

    raw: bytes | Mailbox
    if str(message) == "-":
        raw, where = read_stdin(sys.stdin.buffer), "standard input"
    elif message.is_dir():
        raw, where = read_maildir(message), str(message)
    else:
        raw, where = read_message_file(message), str(message)
    if folder is not None:
        check_folder_files(folder)  # a FIFO or device under a game file's name is refused, never read
    res = read_mail(raw, where, folder, ok_if_none)
    err = res.error()
    writes = res.writes()
    records = res.records() if err is None else []  # a record there that is not its file's stops it all, before any write
    new = [(p, t) for p, t in records if not p.exists()]
    if err is None and (writes or new):
        write_all_new(writes + new)  # each state after its derived files, before the files answering it; records last
    elif err is None and folder is not None:
        remove_leftovers(folder)  # all there already: what a run killed after its last name left
    for path, text in records:  # a record that grows: replaced whole once the files it speaks of are there
        if (path, text) not in new:
            replace_file(path, text, "the mail record", before=path.read_bytes())
    if as_json:
        data = {"message": str(message), "messages": res.messages,
                "skipped": [{"message": e.message, "hint": e.hint} for e in res.skipped],
                "folder": str(folder) if folder else None, "files": [e.as_json() for e in res.entries],
                "written": [str(p) for p, _ in writes] if err is None else [],
                "recorded": [str(p) for p, _ in records]}
        if err is not None:
            echo_error(err, data)
            click.echo(f"pbem: {err.render()}", err=True)
            sys.exit(err.exit_code)
        echo_result(data, res.exit_code)
        return
    n = len(res.entries)
    click.echo(f"{where}: {res.messages} message{'s' if res.messages != 1 else ''}, {n} file{'s' if n != 1 else ''} found")
    for skip in res.skipped:
        click.echo(f"  skipped (damaged, not read): {skip.message.removeprefix(f'{where}, ')}")
    for e in res.entries:
        h = e.data.get("pbem", {}) if isinstance(e.data.get("pbem"), dict) else {}
        what = e.kind
        if e.kind in names.SUBMISSIONS:
            what += f" of {display(str(h.get('side')))} for {display(str(h.get('step')))}"
        elif e.kind in ("state", "view"):
            what += f" {names.number(e.sequence)} of {display(str(h.get('game')))}" if e.sequence is not None else ""
        click.echo(f"  {e.status:<6} {e.name or '?':<26} {what}")
        for s in e.sources:
            click.echo(f"         from {s.removeprefix(f'{where}: ').removeprefix(f'{where}, ')}")
        for note in e.notes:
            click.echo(f"         {note}")
        for ev in e.mail:
            line = ev["verdict"]["line"] if "verdict" in ev else mailtime.summary(ev)
            click.echo(f"         mail {display(str(ev.get('message_id', '(no Message-ID)')), 60)}: {display(line, 400)}")
        if e.error is not None:
            click.echo(f"         exit {e.error.exit_code}: {e.error.message.removeprefix(f'{e.sources[0]}: ')}")
    if err is not None:
        raise err
    if writes:
        click.echo("wrote " + ", ".join(str(p) for p, _ in writes))
    elif not res.entries:
        click.echo("no pbem game file found: nothing to do")
    elif folder is None:
        click.echo("nothing written (give --folder GAME to check them against the game and file them)")
    else:
        click.echo(f"nothing new for {folder}")
    if records:
        click.echo("recorded the evidence of time of the mail (not a signed fact) in " + ", ".join(str(p) for p, _ in records))


@mail.command("write")
@click.argument("state_path", metavar="STATE", type=click.Path(path_type=Path))
@click.option("--orders", type=click.Path(path_type=Path), metavar="FILE", help="Your own next orders (sealed), answering STATE.")
@click.option("--to", "to", multiple=True, required=True, metavar="ADDR", help="A recipient (repeat for more).")
@click.option("--from", "sender", required=True, metavar="ADDR", help="Your address.")
@click.option("--date", metavar="RFC2822", help="The Date header (default: now), e.g. 'Mon, 07 Jul 2025 10:00:00 +0000'.")
@click.option("-o", "--out", type=click.Path(path_type=Path), required=True,
              help="The .eml file to write (a new file); '-' writes the message to standard output.")
@guarded
def mail_write(state_path: Path, orders: Path | None, to: tuple[str, ...], sender: str, date: str | None, out: Path) -> None:
    """Write the message for a state just adjudicated, as an .eml file.

    It is ready to send from any mail program, or with `pbem mail send`.

    The body is the turn summary; attached are the state, its report and picture (when they are
    beside it) and, with --orders, your own next orders. The same files, addresses and --date give
    the same bytes. The Message-ID derives from the game, the state and --from; In-Reply-To names
    the message of the previous state, so a game's turns make one thread in a mail program.

    \b
    Example:
      pbem mail write game/0002.state.toml --orders game/0002-SIDE.orders.toml \\
          --from bob@example.org --to alice@example.org -o 0002.eml
      pbem mail write game/0002.state.toml --from bob@example.org --to alice@example.org -o - | sendmail -t
    """
    from pbem.exchange.files import check_folder_files, write_new
    from pbem.exchange.mail import compose, gather, message_bytes, parse_date

    when = parse_date(date) if date else _dt.datetime.now().astimezone().replace(microsecond=0)
    check_folder_files(state_path.parent)  # the report and picture beside the state are read too
    outgoing = gather(state_path, orders)
    msg = compose(outgoing, sender, list(to), when)
    names = [str(p.get_filename()) for p in msg.iter_attachments()]
    if str(out) == "-":  # the message on standard output; what was done on standard error
        stdout = sys.stdout.buffer
        stdout.write(message_bytes(msg))
        stdout.flush()
        click.echo(f"wrote the message to standard output: {msg['Subject']}", err=True)
        click.echo(f"attached: {', '.join(names)}", err=True)
        return
    written = write_new(out, message_bytes(msg))
    click.echo(f"{'wrote' if written else 'already there with exactly this content:'} {out}: {msg['Subject']}")
    click.echo(f"attached: {', '.join(names)}")


@mail.command("remind")
@click.argument("state_path", metavar="STATE", type=click.Path(path_type=Path))
@click.option("--to", "to", multiple=True, required=True, metavar="ADDR", help="The awaited side's address (repeat for more).")
@click.option("--from", "sender", required=True, metavar="ADDR", help="Your address.")
@click.option("--now", metavar="TIME", help="The time it is, UTC: YYYY-MM-DDTHH:MMZ (default: this machine's clock); also the Date.")
@click.option("-o", "--out", type=click.Path(path_type=Path), required=True,
              help="The .eml file to write (a new file); '-' writes the message to standard output.")
@guarded
def mail_remind(state_path: Path, to: tuple[str, ...], sender: str, now: str | None, out: Path) -> None:
    """Write a reminder of the awaited step's deadline to the awaited side, as an .eml file.

    The body names the step, its deadline and grace period, how late it is (or how long is left),
    and the commands that write, check and seal the awaited file. The same state, addresses and
    --now give the same bytes; it answers the message that carried the state.

    \b
    Example:
      pbem mail remind game/0007.state.toml --from bob@example.org --to alice@example.org -o remind.eml
    """
    from pbem.cli import _now
    from pbem.exchange.files import write_new
    from pbem.exchange.game import load_state
    from pbem.exchange.mail import message_bytes, remind

    msg = remind(load_state(state_path), state_path, sender, list(to), _now(now))
    if str(out) == "-":
        sys.stdout.buffer.write(message_bytes(msg))
        sys.stdout.buffer.flush()
        click.echo(f"wrote the reminder to standard output: {msg['Subject']}", err=True)
        return
    written = write_new(out, message_bytes(msg))
    click.echo(f"{'wrote' if written else 'already there with exactly this content:'} {out}: {msg['Subject']}")


@mail.command("send")
@click.argument("eml", metavar="MESSAGE.eml", type=click.Path(path_type=Path))
@click.option("--smtp", required=True, metavar="HOST[:PORT]",
              help="The SMTP server (port 587 by default, 465 with --ssl, 25 with --no-starttls).")
@click.option("--user", help="Log in as USER (password from $PBEM_SMTP_PASSWORD, or asked for; never stored).")
@click.option("--ssl", "implicit_tls", is_flag=True,
              help="Implicit TLS (SMTPS): encrypted from the first byte; the default on port 465.")
@click.option("--no-starttls", is_flag=True, help="Do not encrypt: only for a test server on this machine.")
@click.option("--cafile", type=click.Path(path_type=Path), help="Trust the server certificate(s) in this PEM file.")
@guarded
def mail_send(eml: Path, smtp: str, user: str | None, implicit_tls: bool, no_starttls: bool, cafile: Path | None) -> None:
    """Send an .eml file over SMTP, to its To and Cc addresses.

    The file is sent as it is: over implicit TLS with --ssl or on port 465, else over STARTTLS
    unless --no-starttls.

    \b
    Example:
      pbem mail send 0002.eml --smtp smtp.example.org --user bob
      pbem mail send 0002.eml --smtp smtp.example.org:465 --user bob
      PBEM_SMTP_PASSWORD=... pbem mail send 0002.eml --smtp smtp.example.org:587 --user bob
    """
    from pbem.exchange.mail import MAX_MESSAGE_BYTES, SMTPS_PORT, parse_server, read_message_file, send

    if implicit_tls and no_starttls:
        raise UsageError("--ssl and --no-starttls contradict each other",
                         hint="--ssl encrypts from the first byte (port 465); --no-starttls is for a test server on this machine.")
    raw = read_message_file(eml)
    if len(raw) > MAX_MESSAGE_BYTES:
        raise UsageError(f"{eml}: {len(raw)} bytes is larger than the {MAX_MESSAGE_BYTES} bytes a message may have")
    host, port = parse_server(smtp, not no_starttls, implicit_tls)
    if port == SMTPS_PORT and not no_starttls:
        implicit_tls = True  # port 465 speaks TLS from the first byte (RFC 8314)

    def password() -> str:
        if os.environ.get(PASSWORD_ENV):
            return os.environ[PASSWORD_ENV]
        try:
            return str(click.prompt(f"SMTP password for {user} at {host}", hide_input=True, err=True))
        except click.Abort as e:
            raise UsageError(f"no SMTP password: set ${PASSWORD_ENV} or run pbem in a terminal to be asked") from e

    frm, rcpts = send(raw, str(eml), host, port, user=user, password=password if user else None,
                      starttls=not no_starttls, cafile=cafile, implicit_tls=implicit_tls)
    how = " (implicit TLS)" if implicit_tls else " (not encrypted)" if no_starttls else " (STARTTLS)"
    click.echo(f"sent {eml} from {frm} to {', '.join(rcpts)} through {host}:{port}{how}")
