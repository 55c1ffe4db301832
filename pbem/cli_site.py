"""``pbem site``: a static web site of a game folder (README, "Watch a game"). The library is ``pbem.site``."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("-o", "--out", type=click.Path(path_type=Path), required=True,
              help="The site's folder: new, empty, or a site pbem wrote before (replaced whole).")
@click.option("--side", help="A refereed game: the site of this side, from its views and reports only.")
def site(folder: Path, out: Path, side: str | None) -> None:
    """A static web site of a game folder: every state in order, with its picture, report, dice,
    seals and files, plots of the game, and the result of `pbem verify` on the folder.

    The site needs no server and fetches nothing: open DIR/index.html, or publish DIR on any static
    host. The same folder gives the same bytes. With --side, the site of one side of a refereed
    game, built from that side's views, its reports and its own files only. A folder that does not
    verify still gets its site, which says so (exit 1, or 3 for tampering).

    \b
    Example:
      pbem site game -o site
      pbem site game --side SIDE -o site-SIDE
    """
    from pbem.cli import guarded  # here: pbem.cli imports this module at its end

    guarded(_site)(folder, out, side)


def _site(folder: Path, out: Path, side: str | None) -> None:
    import sys

    from pbem.exchange.files import refuse_special
    from pbem.site.build import build, describe

    refuse_special(folder)
    game, files = build(folder, out, side)
    click.echo(describe(game, files, out))
    if not game.verdict.ok:
        sys.exit(game.verdict.exit_code)
